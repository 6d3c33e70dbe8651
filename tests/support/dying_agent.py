"""An ``http:`` agent for the tests that dies mid-run: ``python dying_agent.py PORT [TURNS]`` answers the hello and
TURNS turn requests (default: every one) with a plain reply, then exits as a killed service would, its port closed.
The standard library only, one request at a time: what it answered before dying is exact."""

from __future__ import annotations

import json
import os
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer


def main() -> None:
    port = int(sys.argv[1])
    turns_left = [int(sys.argv[2]) if len(sys.argv) > 2 else -1]

    class Agent(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            hello = request.get("kind") == "hello"
            answer = {"kind": "hello"} if hello else {"reply": f"turn {request['turn']}: I cannot help with that."}
            body = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            if not hello:
                turns_left[0] -= 1
                if turns_left[0] == 0:
                    os._exit(0)  # no shutdown, no goodbye: the port closes with the process

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", port), Agent)
    print("listening", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
