# An Attractor pipeline: every feature on `.dot`.
open pipeline.dot
diagnostics pipeline.dot

# A duration without a unit (`timeout=900`) carries a fix: a quick fix.
request textDocument/codeAction {"textDocument": "$doc:pipeline.dot",
  "range": {"start": {"line": 4, "character": 0}, "end": {"line": 9, "character": 0}},
  "context": {"diagnostics": []}}

request textDocument/hover "$at:4"
request textDocument/definition "$at:6"
request textDocument/references {"textDocument": "$doc:pipeline.dot", "position": "$pos:4",
  "context": {"includeDeclaration": true}}
request textDocument/documentHighlight "$at:6"
request textDocument/prepareRename "$at:4"
request textDocument/rename {"textDocument": "$doc:pipeline.dot", "position": "$pos:4",
  "newName": "build"}
request textDocument/documentSymbol {"textDocument": "$doc:pipeline.dot"}
request workspace/symbol {"query": "plan"}
request textDocument/foldingRange {"textDocument": "$doc:pipeline.dot"}
request textDocument/semanticTokens/full {"textDocument": "$doc:pipeline.dot"}
request textDocument/inlayHint {"textDocument": "$doc:pipeline.dot",
  "range": {"start": {"line": 0, "character": 0}, "end": {"line": 20, "character": 0}}}

# Completion: shapes after `shape=`, handler types after `type=`, node
# attributes, graph attributes, node ids after `->`, statuses after
# `outcome=` in a condition, edge attributes.
request textDocument/completion "$at:1"
request textDocument/completion "$at:2"
request textDocument/completion "$at:3"
request textDocument/completion "$at:5"
request textDocument/completion "$at:6"
request textDocument/completion "$at:7"
request textDocument/completion "$at:8"

# Formatting: whole document and a range.
request textDocument/formatting {"textDocument": "$doc:pipeline.dot",
  "options": {"tabSize": 2, "insertSpaces": true}}
request textDocument/rangeFormatting {"textDocument": "$doc:pipeline.dot", "range": "$range:4:3",
  "options": {"tabSize": 2, "insertSpaces": true}}

# Fix the typo: its diagnostic goes.
replace pipeline.dot ["outcome=sucess", "outcome=success"]
diagnostics pipeline.dot

# Suppress the bare-number timeout as the quick fix above does: its warning
# goes, and a misspelled suppression is reported instead.
replace pipeline.dot ["  implement [", "  // wfc: allow(dot-duration-unit)\n  implement ["]
diagnostics pipeline.dot
# Hover on the name in the comment explains the code, in `//` and `#`
# comments alike.
request textDocument/hover {"textDocument": "$doc:pipeline.dot", "position": {"line": 4, "character": 20}}
replace pipeline.dot ["// wfc: allow(dot", "# wfc: allow(dot"]
request textDocument/hover {"textDocument": "$doc:pipeline.dot", "position": {"line": 4, "character": 20}}
diagnostics pipeline.dot
replace pipeline.dot ["# wfc: allow(dot", "// wfc: allow(dot"]
replace pipeline.dot ["allow(dot-duration-unit)", "allow(dot-duration-units)"]
diagnostics pipeline.dot
