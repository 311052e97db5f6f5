# Hover, navigation, outline and decorations on a two-file `.wf` project.
init {"show": true}
open main.wf
diagnostics main.wf

# Hover: a node in an edge, a key, the callee of a call, a diagnostic code.
request textDocument/hover "$at:1"
request textDocument/hover "$at:2"
request textDocument/hover "$at:4"
request textDocument/hover "$at:5"

# Definition: node in an edge, workflow in `call` (other file), import, key → writers.
request textDocument/definition "$at:1"
request textDocument/definition "$at:4"
request textDocument/definition "$at:3"
request textDocument/definition "$at:6"

# References and highlight of a node; references of a key.
request textDocument/references {"textDocument": "$doc:main.wf", "position": "$pos:1",
  "context": {"includeDeclaration": true}}
request textDocument/references {"textDocument": "$doc:main.wf", "position": "$pos:6",
  "context": {"includeDeclaration": true}}
request textDocument/documentHighlight "$at:1"

# Outline, workspace symbols, folding, semantic tokens, inlay hints.
request textDocument/documentSymbol {"textDocument": "$doc:main.wf"}
request workspace/symbol {"query": "re"}
request textDocument/foldingRange {"textDocument": "$doc:main.wf"}
request textDocument/semanticTokens/full {"textDocument": "$doc:main.wf"}
request textDocument/inlayHint {"textDocument": "$doc:main.wf",
  "range": {"start": {"line": 0, "character": 0}, "end": {"line": 20, "character": 0}}}
