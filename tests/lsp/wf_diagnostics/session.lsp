# Diagnostics: published with related information (the other declaration
# of a duplicate), quick fixes from their fixes, cleared once fixed, and
# refreshed in an importer when the imported file changes.
open main.wf
open lib.wf
diagnostics main.wf lib.wf

# Every diagnostic carrying a fix offers it as a quick fix.
request textDocument/codeAction {"textDocument": "$doc:main.wf",
  "range": {"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}},
  "context": {"diagnostics": []}}

# Fix everything: the diagnostics of main.wf are cleared.
replace main.wf ["reads draft", "reads ticket"]
replace main.wf ["  step plan { writes other: string }\n", ""]
replace main.wf ["Reveiw", "Review"]
diagnostics main.wf

# Diagnostics refreshed across an import: the callee stops giving
# `verdict`, so the caller's return map breaks.
replace lib.wf ["gives verdict: string", "gives result: string"]
replace lib.wf ["writes verdict: string", "writes result: string"]
diagnostics main.wf lib.wf

# And back: cleared again.
replace lib.wf ["gives result: string", "gives verdict: string"]
replace lib.wf ["writes result: string", "writes verdict: string"]
diagnostics main.wf
