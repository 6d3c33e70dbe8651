"""What stands before the SDK's streamable-HTTP entry at ``/mcp/<token>``: the two things the SDK cannot get right
for squall's episode URLs.

- A token that names no episode (a typo, an episode that ended) is refused at once, on every request
  ``initialize`` included, with HTTP 404 and a JSON-RPC error: the SDK knows nothing of the URL's token and would
  complete the handshake, then fail every call.
- A JSON-RPC batch (a JSON array body): the SDK reads one message per POST and would answer a batch with HTTP 400
  and a pydantic dump. Revisions 2024-11-05 and 2025-03-26 allow batches, so each member is answered through the
  SDK in turn (as its own POST, in JSON-response mode) and the answers go back as one JSON array; notifications
  sent while a member runs (``tools/list_changed``) have no place in that array and are dropped, a client learns
  of the change at its next ``tools/list``. 2025-06-18 removed batching: later revisions get a JSON-RPC error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp_types import INTERNAL_ERROR, INVALID_REQUEST
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sim.mcp.episode import NO_EPISODE, NO_TURN

BATCH_VERSIONS = frozenset({"2024-11-05", "2025-03-26"})
"""Revisions whose clients may batch. A request with no version header is 2025-03-26 (the spec's default)."""

_HEADER = MCP_PROTOCOL_VERSION_HEADER.lower().encode("latin-1")


class EpisodeGate:
    """ASGI app for ``/mcp/{token}``: refuses unknown tokens and answers batches, hands the rest to ``app``."""

    def __init__(self, known: Callable[[str], bool], app: ASGIApp, json_app: ASGIApp) -> None:
        self._known = known
        self._app = app
        self._json_app = json_app  # the same server in JSON-response mode: one JSON answer per batch member

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        token = scope.get("path_params", {}).get("token")
        if not isinstance(token, str) or not self._known(token):
            await _send_json(send, 404, _error(None, NO_TURN, NO_EPISODE))
            return
        if scope.get("method") != "POST":
            await self._app(scope, receive, send)
            return
        body = await _read_body(receive)
        batch = _as_batch(body)
        if batch is None:
            await self._app(scope, _replay(body, receive), send)
            return
        version = _header(scope, _HEADER)
        if version is not None and version not in BATCH_VERSIONS:
            message = f"MCP {version} has no JSON-RPC batches (2025-06-18 removed them): send one message per request"
            await _send_json(send, 400, _error(None, INVALID_REQUEST, message))
            return
        if not batch:
            await _send_json(send, 400, _error(None, INVALID_REQUEST, "An empty JSON-RPC batch"))
            return
        answers = [a for member in batch if (a := await self._answer(scope, receive, member)) is not None]
        if answers:
            await _send_json(send, 200, answers)
        else:  # only notifications: nothing to answer
            await send({"type": "http.response.start", "status": 202, "headers": []})
            await send({"type": "http.response.body", "body": b""})

    async def _answer(self, scope: Scope, receive: Receive, member: Any) -> dict[str, Any] | None:
        """One member as its own POST through the SDK: its JSON-RPC answer, None for a notification."""
        member_id = member.get("id") if isinstance(member, dict) else None
        member_id = member_id if isinstance(member_id, str | int) and not isinstance(member_id, bool) else None
        if not isinstance(member, dict) or member.get("jsonrpc") != "2.0" or not isinstance(member.get("method"), str):
            return _error(member_id, INVALID_REQUEST, "Each batch member must be a JSON-RPC request or notification")
        body = json.dumps(member).encode()
        headers = [(k, v) for k, v in scope["headers"] if k not in (b"accept", b"content-length", b"content-type")]
        headers += [(b"accept", b"application/json"), (b"content-type", b"application/json")]
        headers.append((b"content-length", str(len(body)).encode()))
        status, answer = await _capture(self._json_app, {**scope, "headers": headers}, _replay(body, receive))
        if status == 202:
            return None
        try:
            decoded = json.loads(answer)
        except ValueError:
            decoded = None
        if isinstance(decoded, dict):
            return decoded
        return _error(member_id, INTERNAL_ERROR, f"squall could not answer this batch member (HTTP {status})")


def _as_batch(body: bytes) -> list[Any] | None:
    """The members if the body is a JSON array; anything else (invalid JSON too) is the SDK's to answer."""
    if not body.lstrip().startswith(b"["):
        return None
    try:
        decoded = json.loads(body)
    except ValueError:
        return None
    return decoded if isinstance(decoded, list) else None


def _header(scope: Scope, name: bytes) -> str | None:
    return next((v.decode("latin-1") for k, v in scope["headers"] if k.lower() == name), None)


def _error(request_id: str | int | None, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


async def _read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":  # the client went away: nothing more will come
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands over ``body`` once, then waits on the real one (for the client's disconnect)."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


async def _capture(app: ASGIApp, scope: Scope, receive: Receive) -> tuple[int, bytes]:
    """Run ``app`` for one request; its status and body (JSON-response mode answers in one body)."""
    status, chunks = 500, []

    async def send(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, b"".join(chunks)


async def _send_json(send: Send, status: int, value: Any) -> None:
    body = json.dumps(value).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
