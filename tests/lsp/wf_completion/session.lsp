# Completion in every `.wf` context, the cursor at the start of the word
# being typed.
open main.wf

# A workflow body: keywords, node kinds, nodes and workflow attributes.
request textDocument/completion "$at:1"
# A step's body: node attributes with their types, `reads`, `writes`.
request textDocument/completion "$at:2"
# A tool's body: `command` too.
request textDocument/completion "$at:3"
# After `call name =`: workflows.
request textDocument/completion "$at:4"
# Return map, left side: node attributes and the caller's keys.
request textDocument/completion "$at:5"
# Return map, right side: what the callee gives or writes.
request textDocument/completion "$at:6"
# After `->`: the workflow's nodes.
request textDocument/completion "$at:7"
# After `outcome ==`: statuses.
request textDocument/completion "$at:8"
# After `reads`: keys.
request textDocument/completion "$at:9"

# Half-typed: an unclosed node body still completes attributes.
replace main.wf ["  step publish { reads decision }\n}\n", "  step publish { reads decision }\n  human ask { ti"]
request textDocument/completion {"textDocument": "$doc:main.wf",
  "position": {"line": 15, "character": 16}}
