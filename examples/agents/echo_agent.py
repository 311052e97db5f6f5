#!/usr/bin/env python3
"""A wfc decision agent (protocol "wfc-agent" version 1, docs/agents.md).

Run it with: wfc run FILE --agent 'exec:python3 examples/agents/echo_agent.py'
It succeeds at every node along the first valid edge, writes a placeholder
for every declared key, and completes at terminals. Logs go to stderr.
"""
import json
import sys

PLACEHOLDER = {"string": "", "int": 0, "float": 0.0, "number": 0, "bool": False,
               "list": [], "map": {}, "any": None}

for line in sys.stdin:
    context = json.loads(line)
    node = context["node"]
    print(f"echo_agent: step {context['step']} at {node['id']}", file=sys.stderr)
    writes = [{"key": w["key"], "value": PLACEHOLDER[w["type"]]} for w in node["writes"]]
    if node["terminal"]:
        answer = {"type": "complete", "writes": writes}
    else:
        edge = context["edges"][0]["id"] if context["edges"] else None
        answer = {"type": "advance", "status": "success", "writes": writes, "edge": edge}
    print(json.dumps(answer), flush=True)
