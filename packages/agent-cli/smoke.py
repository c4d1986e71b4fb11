"""Smoke program of robota-agent-cli: the installed ``robota`` command answers a task, offline.

``robota --help``, then ``robota run`` against an OpenAI-compatible server on 127.0.0.1 (this
script, serving one streamed Chat Completions answer), with ``$ROBOTA_HOME`` in a temp dir.
"""

import json
import os
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROBOTA = Path(sys.executable).with_name("robota")  # the console script of this environment
CHUNKS = [{"content": "Bonjour"}, {"content": " !"}]


class Server(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        finishes: list[str | None] = [None] * len(CHUNKS) + ["stop"]
        deltas = [*CHUNKS, {}]
        events = [
            {"choices": [{"index": 0, "delta": d, "finish_reason": f}]}
            for d, f in zip(deltas, finishes, strict=True)
        ]
        body = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, format: str, *args: object) -> None:  # quiet
        del format, args


server = ThreadingHTTPServer(("127.0.0.1", 0), Server)
threading.Thread(target=server.serve_forever, daemon=True).start()
scratch = tempfile.mkdtemp()
env = {**os.environ, "ROBOTA_HOME": os.path.join(scratch, "home")}
help_text = subprocess.run([ROBOTA, "--help"], capture_output=True, text=True, check=True).stdout
assert "run" in help_text, help_text
assert "sessions" in help_text, help_text
url = f"http://127.0.0.1:{server.server_address[1]}/v1"
argv = [ROBOTA, "run", "Say hello in French", "--base-url", url, "--cwd", scratch, "--no-title"]
run = subprocess.run(argv, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL)
assert run.returncode == 0, (run.returncode, run.stdout, run.stderr)
assert "Bonjour !" in run.stdout, (run.returncode, run.stdout, run.stderr)
server.shutdown()
print("smoke ok robota-agent-cli")
