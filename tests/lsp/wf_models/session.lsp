# WF0816 on a `.wf` step, as `wfc check` reports it: the misspelt model
# is flagged with the nearest known one; the model wf.toml's
# `[llm.models]` adds is not.
open main.wf
diagnostics main.wf

# Fixed: cleared.
replace main.wf ["claude-sonet-4-6", "claude-sonnet-4-6"]
diagnostics main.wf
