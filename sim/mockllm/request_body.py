"""``json.loads`` of a request body, without re-parsing the tool list that every request of a run repeats.

Why: an agent sends the same tool definitions with every request (smart_home's: ~7 KB of its ~8 KB body), and parsing
them was most of the mock's own work per request. The parser keeps the text of recent top-level ``"tools"`` values with
their parsed value; a body that holds one of them is parsed with that span replaced by the placeholder ``NaN``, which
the decoder reports through ``parse_constant``. If the body parses, the placeholder is its only NaN, and it is the
top-level ``"tools"`` value, then the whole body parses to the same object with the cached value in that place (any
JSON value may stand in a value position; both texts are self-delimiting). Anything else, the full ``json.loads``.

The cached value is shared by every request that sends it: policies must treat the request as read-only (they are
pure functions of it).
"""

from __future__ import annotations

import json
from typing import Any

_TOOLS_KEY = '"tools"'
_WHITESPACE = " \t\n\r"
_KEEP = 64  # distinct tool lists remembered (a run of several worlds sends a few each)
# A tool list is looked up by its first characters (its first tool's name and description); shorter lists are not
# cached: they parse faster than the bookkeeping costs.
_KEY = 256


class _Placeholder:
    """What the decoder makes of the NaN that stands in for the tool list."""


_PLACEHOLDER = _Placeholder()


class BodyParser:
    """``parse(raw)`` == ``json.loads(raw)``, raising the same ValueError on a bad body; see the module doc."""

    def __init__(self) -> None:
        self._tools: dict[str, tuple[str, Any]] = {}  # first _KEY characters -> (tool-list text, its parse)
        self._nans = 0
        self._decoder = json.JSONDecoder(parse_constant=self._constant)
        self._plain = json.JSONDecoder()  # what json.loads decodes bytes with, after decoding them as below

    def _constant(self, name: str) -> Any:
        if name == "NaN":
            self._nans += 1
            return _PLACEHOLDER
        return float(name)  # Infinity, -Infinity: as json.loads makes them

    def parse(self, raw: bytes) -> Any:
        # json.loads on bytes: the same detection and decoding, so a body fails (or not) exactly as it would there.
        text = raw.decode(json.detect_encoding(raw), "surrogatepass")
        start = _tools_value_start(text)
        if start >= 0:
            cached = self._tools.get(text[start : start + _KEY])
            if cached is not None and text.startswith(cached[0], start):
                found = self._with_cached(text, start, *cached)
                if found is not None:
                    return found
        body = self._plain.decode(text)
        if start >= 0 and isinstance(body, dict) and isinstance(body.get("tools"), list):
            self._remember(text, start, body["tools"])
        return body

    def _with_cached(self, text: str, start: int, tools_text: str, tools: Any) -> dict[str, Any] | None:
        self._nans = 0
        try:
            body = self._decoder.decode(text[:start] + "NaN" + text[start + len(tools_text) :])
        except ValueError:
            return None
        if self._nans != 1 or not isinstance(body, dict) or body.get("tools") is not _PLACEHOLDER:
            return None
        body["tools"] = tools
        return body

    def _remember(self, text: str, start: int, tools: list[Any]) -> None:
        try:
            value, end = self._plain.raw_decode(text, start)
        except ValueError:
            return
        if value != tools or end - start < _KEY:
            return
        # The cache maps a text to its own parse; whether a later body holds it as its tool list is checked there.
        tools_text = text[start:end]
        key = tools_text[:_KEY]
        self._tools.pop(key, None)
        self._tools[key] = (tools_text, tools)
        while len(self._tools) > _KEEP:
            del self._tools[next(iter(self._tools))]


def _tools_value_start(text: str) -> int:
    """Where the value after the last ``"tools"`` key-like text starts (``-1``: none); a guess checked by the parse."""
    key = text.rfind(_TOOLS_KEY)
    if key < 0:
        return -1
    i = key + len(_TOOLS_KEY)
    n = len(text)
    while i < n and text[i] in _WHITESPACE:
        i += 1
    if i >= n or text[i] != ":":
        return -1
    i += 1
    while i < n and text[i] in _WHITESPACE:
        i += 1
    return i if i < n and text[i] == "[" else -1
