"""The reader's agent service in the docs' ``--agent http://127.0.0.1:9000/agent``: a squall-agent/1 endpoint on an
ephemeral port of 127.0.0.1, answering the hello and every turn, calling no tool."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        hello = request.get("kind") == "hello"  # the handshake before a run
        body = json.dumps({"kind": "hello"} if hello else {"reply": f"Turn {request['turn']}: noted."}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # the test's output stays the commands'
        pass


@contextmanager
def agent_service() -> Iterator[str]:
    """The service's URL while the block runs."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/agent"
    finally:
        server.shutdown()
        server.server_close()
