# Several workspace folders, each with its own `wf.toml`: `a` denies
# unreachable nodes, `b` allows them. Folders come and go with
# `workspace/didChangeWorkspaceFolders`.
init {"folders": ["a"]}
diagnostics a/alpha.wf b/beta.wf
request workspace/symbol {"query": "orphan"}

notify workspace/didChangeWorkspaceFolders {"event": {"added": [{"uri": "$uri:b", "name": "b"}],
  "removed": []}}
diagnostics a/alpha.wf b/beta.wf
request workspace/symbol {"query": "orphan"}

# Removing `a` drops its files: their diagnostics are cleared.
notify workspace/didChangeWorkspaceFolders {"event": {"added": [],
  "removed": [{"uri": "$uri:a", "name": "a"}]}}
diagnostics a/alpha.wf b/beta.wf
request workspace/symbol {"query": "orphan"}
