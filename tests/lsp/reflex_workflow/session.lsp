# A Reflex workflow (JSON): diagnostics, navigation and symbols on the
# same database as `.wf` files.
open greet.json
diagnostics greet.json

request textDocument/hover "$at:1"
request textDocument/definition "$at:2"
request textDocument/references {"textDocument": "$doc:greet.json", "position": "$pos:1",
  "context": {"includeDeclaration": true}}
request textDocument/documentSymbol {"textDocument": "$doc:greet.json"}
request workspace/symbol {"query": "greet"}
request textDocument/codeAction {"textDocument": "$doc:greet.json",
  "range": {"start": {"line": 5, "character": 0}, "end": {"line": 6, "character": 0}},
  "context": {"diagnostics": []}}

# Fix the misspelled input: its diagnostic goes.
replace greet.json ["\"nmae\"", "\"name\""]
diagnostics greet.json

# Break the JSON: a syntax error with a location, and no crash.
replace greet.json ["\"DONE\": {", "\"DONE\" {"]
diagnostics greet.json
