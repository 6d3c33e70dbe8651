"""An OpenAI-compatible endpoint answering with canned replies over real HTTP/1.1 (keep-alive, its own thread): what a
real provider sends, replayed to squall's client in a test, or to a whole ``squall run``."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Canned:
    """One HTTP answer: a JSON body (or raw bytes), its status and headers."""

    body: Any
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)

    def raw(self) -> bytes:
        return self.body if isinstance(self.body, bytes) else json.dumps(self.body).encode()


Answer = Callable[[dict[str, Any]], Canned]
"""The request's JSON body -> the answer."""


class CannedProvider:
    """``POST .../chat/completions`` answered by ``answer`` (a function of the request, or a list of answers given in
    order, the last repeated); ``GET .../models`` lists ``models``. Every request body is kept, parsed."""

    def __init__(self, answer: Answer | Sequence[Canned], models: Sequence[str] = ("m",)) -> None:
        self.requests: list[dict[str, Any]] = []
        self.models = list(models)
        self._answer = answer
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def next_answer(self, request: dict[str, Any]) -> Canned:
        with self._lock:
            self.requests.append(request)
            if callable(self._answer):
                return self._answer(request)
            return self._answer[min(len(self.requests), len(self._answer)) - 1]

    def set_answers(self, answer: Answer | Sequence[Canned]) -> None:
        with self._lock:
            self._answer = answer
            self.requests.clear()

    def start(self) -> CannedProvider:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@contextmanager
def canned_provider(answer: Answer | Sequence[Canned], models: Sequence[str] = ("m",)) -> Iterator[CannedProvider]:
    server = CannedProvider(answer, models).start()
    try:
        yield server
    finally:
        server.stop()


def _handler(provider: CannedProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as providers answer

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            request = json.loads(self.rfile.read(length) or b"{}")
            self._send(provider.next_answer(request))

        def do_GET(self) -> None:
            self._send(Canned({"object": "list", "data": [{"id": m, "object": "model"} for m in provider.models]}))

        def _send(self, canned: Canned) -> None:
            raw = canned.raw()
            self.send_response(canned.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            for name, value in canned.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, format: str, *args: Any) -> None:
            return None

    return Handler
