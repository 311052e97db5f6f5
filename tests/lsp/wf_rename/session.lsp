# Rename: a workflow across files, a key the callee gives (followed into
# every caller's return map, across files), a caller-side key; and
# prepare-rename refusing built-ins.
open main.wf

request textDocument/prepareRename "$at:1"
request textDocument/rename {"textDocument": "$doc:lib.wf", "position": "$pos:1",
  "newName": "Audit"}

# The callee's key: its declaration, its writer, and the right side of
# `decision <- verdict` in main.wf and `answer <- verdict` in other.wf.
request textDocument/prepareRename "$at:2"
request textDocument/rename {"textDocument": "$doc:lib.wf", "position": "$pos:2",
  "newName": "judgement"}

# The caller's key: the left side of the return map and its readers.
request textDocument/rename {"textDocument": "$doc:main.wf", "position": "$pos:3",
  "newName": "approved"}

# Built-ins cannot be renamed: `outcome`, the entry node `start`.
request textDocument/prepareRename "$at:5"
request textDocument/prepareRename "$at:6"
# Nor can a name become a keyword.
request textDocument/rename {"textDocument": "$doc:lib.wf", "position": "$pos:2",
  "newName": "workflow"}
