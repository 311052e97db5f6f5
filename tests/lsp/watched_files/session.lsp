# Files changed on disk while closed: the server registers watchers when
# the client allows it, and re-reads what `didChangeWatchedFiles` reports;
# the importer's diagnostics follow.
init {"watch": true}
open main.wf
server-requests
diagnostics main.wf

# lib.wf changes on disk (not open): `verdict` is gone.
write lib.wf "workflow Review {\n  needs plan: string\n  gives result: string\n  step judge { reads plan  writes result: string }\n  start -> judge -> done\n}\n"
notify workspace/didChangeWatchedFiles {"changes": [{"uri": "$uri:lib.wf", "type": 2}]}
diagnostics main.wf lib.wf

# lib.wf is deleted: the import is missing.
delete lib.wf
notify workspace/didChangeWatchedFiles {"changes": [{"uri": "$uri:lib.wf", "type": 3}]}
diagnostics main.wf

# It comes back, with another file next to it.
write lib.wf "workflow Review {\n  needs plan: string\n  gives verdict: string\n  step judge { reads plan  writes verdict: string }\n  start -> judge -> done\n}\n"
write extra.wf "workflow Extra {\n  step lonely\n  start -> done\n}\n"
notify workspace/didChangeWatchedFiles {"changes": [{"uri": "$uri:lib.wf", "type": 1},
  {"uri": "$uri:extra.wf", "type": 1}]}
diagnostics main.wf extra.wf
request workspace/symbol {"query": "Extra"}

# Files a walk of the project skips stay out when created later, as
# `wfc check` skips them: a hidden folder, and what an ignore file names
# (a changed ignore file reloads the workspace; `.ignore` applies outside
# git too, `.gitignore` only inside a repository).
write .ignore "skipped.wf\n"
notify workspace/didChangeWatchedFiles {"changes": [{"uri": "$uri:.ignore", "type": 1}]}
write .hidden/stray.wf "workflow Stray {\n  step lonely\n  start -> done\n}\n"
write skipped.wf "workflow Skipped {\n  step lonely\n  start -> done\n}\n"
notify workspace/didChangeWatchedFiles {"changes": [{"uri": "$uri:.hidden/stray.wf", "type": 1},
  {"uri": "$uri:skipped.wf", "type": 1}]}
diagnostics .hidden/stray.wf skipped.wf
request workspace/symbol {"query": "Stray"}
request workspace/symbol {"query": "Skipped"}
