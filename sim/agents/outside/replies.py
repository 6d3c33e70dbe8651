"""What an outside agent answered, read as a ``squall-agent/1`` reply (or handshake answer), or refused with an
``OutsideBadReply`` naming what was wrong. No transport here (no aiohttp): the preflight reads answers too."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from sim.agents.outside.errors import OutsideBadReply
from sim.agents.outside.protocol import AgentReply, HelloReply

MAX_REPLY_BYTES = 4 * 1024 * 1024
"""A reply larger than this is garbage, not a message to a user."""


def reply_from_json(value: Any, source: str) -> AgentReply:
    """A decoded JSON value as a reply, or OutsideBadReply naming what was wrong with it."""
    if isinstance(value, AgentReply):
        return value
    try:
        return AgentReply.model_validate(value)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'reply'}: {e['msg']}" for e in exc.errors()[:3])
        raise OutsideBadReply(f"{source}: not a squall-agent/1 reply ({problems})") from None


def _decoded(raw: bytes, source: str) -> str:
    if len(raw) > MAX_REPLY_BYTES:
        raise OutsideBadReply(f"{source}: a reply of {len(raw)} bytes (at most {MAX_REPLY_BYTES})")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise OutsideBadReply(f"{source}: reply is not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _json_or_text(raw: bytes, source: str, text_allowed: bool) -> Any:
    """The answer decoded: a JSON value, or (``text_allowed`` and it does not look like JSON) the text itself."""
    text = _decoded(raw, source).strip()
    if not text:
        raise OutsideBadReply(f"{source}: empty reply")
    if text_allowed and text[0] not in '{["':
        return text
    try:
        return json.loads(text)
    except ValueError:
        raise OutsideBadReply(f"{source}: reply is not JSON: {text[:200]!r}") from None


def reply_from_bytes(raw: bytes, source: str, text_allowed: bool) -> AgentReply:
    """JSON bytes as a reply; with ``text_allowed`` (a command's stdout) anything that does not look like JSON is
    the reply's text. Broken JSON, empty output and bytes that are not UTF-8 are bad replies either way."""
    value = _json_or_text(raw, source, text_allowed)
    return AgentReply(reply=value) if isinstance(value, str) and text_allowed else reply_from_json(value, source)


def hello_from_bytes(raw: bytes, source: str, text_allowed: bool) -> HelloReply | AgentReply:
    """The answer to the handshake: a ``HelloReply``, or any reply (an agent may answer the hello as a turn)."""
    value = _json_or_text(raw, source, text_allowed)
    if isinstance(value, dict) and value.get("kind") == "hello":
        try:
            return HelloReply.model_validate(value)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:3])
            raise OutsideBadReply(f"{source}: not a squall-agent/1 hello answer ({problems})") from None
    return AgentReply(reply=value) if isinstance(value, str) and text_allowed else reply_from_json(value, source)
