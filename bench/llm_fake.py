"""A fake Anthropic Messages server for bench/llm_parallel.sh: every
request is answered after DELAY seconds with a short whole answer.
Usage: llm_fake.py PORT_FILE DELAY (the port it bound is written there)."""
import http.server
import json
import os
import sys
import time

DELAY = float(sys.argv[2])
BODY = json.dumps({
    "id": "msg_bench", "type": "message", "role": "assistant",
    "model": "claude-sonnet-4-6", "stop_reason": "end_turn",
    "content": [{"type": "text", "text": "looks fine"}],
    "usage": {"input_tokens": 100, "output_tokens": 5},
}).encode()


class Handler(http.server.BaseHTTPRequestHandler):

    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        time.sleep(DELAY)
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
# Renamed whole, so the script never reads half a port number.
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
server.serve_forever()
