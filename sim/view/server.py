"""``squall view`` served: a small HTTP server on 127.0.0.1 (the page, its assets and the documents as JSON).

Threads, one per request: a run's documents build once per state of its files (``ViewSite`` holds a lock), and a
browser polling ``version`` every few seconds costs a few ``stat`` calls."""

from __future__ import annotations

import json
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

from sim.store.run_store import StoreError
from sim.view.page import ASSETS, asset, index_html
from sim.view.site import ViewSite

TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}


def make_server(site: ViewSite, port: int = 0) -> ThreadingHTTPServer:
    """A server bound to 127.0.0.1 (``port`` 0: the system picks a free one; read ``server.server_address``)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = unquote(urlsplit(self.path).path)
            if path in ("/", "/index.html"):
                self._send(HTTPStatus.OK, "text/html; charset=utf-8", index_html("served").encode("utf-8"))
            elif path.startswith("/app/") and path[5:] in ASSETS:
                name = path[5:]
                self._send(HTTPStatus.OK, TYPES[name[name.rindex(".") :]], asset(name))
            elif path.startswith("/api/") and path.endswith(".json"):
                self._document(path[5:-5])
            else:
                self._send(HTTPStatus.NOT_FOUND, "text/plain", b"not found\n")

        def _document(self, name: str) -> None:
            try:
                doc: Any = site.document(name)
            except (StoreError, ValueError, OSError) as exc:
                self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": str(exc)})
                return
            if doc is None:
                self._json(HTTPStatus.NOT_FOUND, {"error": f"no document {name!r}"})
            else:
                self._json(HTTPStatus.OK, doc)

        def _json(self, status: HTTPStatus, doc: Any) -> None:
            body = json.dumps(doc, separators=(",", ":"), default=str).encode("utf-8")
            self._send(status, "application/json", body)

        def _send(self, status: HTTPStatus, kind: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            return  # quiet: the terminal shows the address and nothing else

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    return server
