# Formatting: the whole document, and a range (only the items it touches).
open main.wf
request textDocument/formatting {"textDocument": "$doc:main.wf",
  "options": {"tabSize": 2, "insertSpaces": true}}
request textDocument/rangeFormatting {"textDocument": "$doc:main.wf", "range": "$range:1:2",
  "options": {"tabSize": 2, "insertSpaces": true}}
# A file with a syntax error is left alone.
replace main.wf ["start->plan", "start->->plan"]
request textDocument/formatting {"textDocument": "$doc:main.wf",
  "options": {"tabSize": 2, "insertSpaces": true}}
