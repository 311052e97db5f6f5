#!/usr/bin/env python3
"""A wfc decision agent (protocol "wfc-agent" version 2, docs/agents.md).

Run it with: wfc run FILE --agent 'exec:python3 examples/agents/echo_agent.py'
It succeeds at every node along the first valid edge, writes a placeholder
for every declared key, and completes at terminals. Logs go to stderr.
"""
import json
import sys

VERSION = 2
PLACEHOLDER = {"string": "", "int": 0, "float": 0.0, "number": 0, "bool": False,
               "list": [], "map": {}, "any": None}


def send(message):
    print(json.dumps(message), flush=True)


def decide(request):
    node = request["node"]
    print(f"echo_agent: step {request['step']} at {node['id']}", file=sys.stderr)
    writes = [{"key": w["key"], "value": PLACEHOLDER[w["type"]]} for w in node["writes"]]
    if node["terminal"]:
        return {"type": "complete", "writes": writes}
    edge = request["edges"][0]["id"] if request["edges"] else None
    return {"type": "advance", "status": "success", "writes": writes, "edge": edge}


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        # wfc offers the versions it speaks; answer with the one we use.
        if VERSION not in message["versions"]:
            sys.exit(f"echo_agent: wfc offers versions {message['versions']}, "
                     f"this agent speaks {VERSION}")
        send({"type": "hello", "protocol": "wfc-agent", "version": VERSION})
    elif message["type"] == "decide":
        # Every answer echoes the request's id.
        send({"id": message["id"], **decide(message)})
    # Requests of other types may come in later versions: this agent did
    # not choose such a version, so it never sees one.
