"""Tokens: how many a request will spend, and the buckets it spends them from.

``TokenEstimator`` counts a request's input tokens with its model family's tiktoken encoding. ``TokenBucket`` and
``MinuteWindow`` are pure arithmetic on a clock value the caller passes in (no asyncio, no timers): the scheduler
asks how long until an amount is available, takes it when it admits a request, and gives back what the request
did not use once the provider reports its usage.
"""

from __future__ import annotations

import functools
import json
import math
import weakref
from typing import Any

import tiktoken

from sim.core import ChatMessage, ModelRequest, ToolCall, ToolSpec
from sim.llm.tokens import TokenizerUnavailable, get_encoding

_BINS_PER_S = 4
_WINDOW_BINS = 60 * _BINS_PER_S + 1


class TokenBucket:
    """Capacity one minute's worth at the paced rate; refills continuously; may go negative (debt).

    ``utilization`` paces below the provider's limit: the margin absorbs estimates that run low and clock skew
    between our bucket and the provider's window. The bucket starts nearly empty, with only that margin,
    so that even a sliding-window limiter never sees more than its limit in the first minute.
    """

    __slots__ = ("capacity", "level", "per_minute", "rate", "updated", "utilization")

    def __init__(self, per_minute: float, utilization: float, now: float, level: float | None = None) -> None:
        self.utilization = utilization
        self.per_minute = self.capacity = self.rate = 0.0
        self.set_limit(per_minute)
        self.level = self.per_minute * (1.0 - utilization) if level is None else min(level, self.capacity)
        self.updated = now

    def set_limit(self, per_minute: float) -> None:
        self.per_minute = float(per_minute)
        self.capacity = self.per_minute * self.utilization
        self.rate = self.capacity / 60.0

    def refill(self, now: float) -> float:
        if now > self.updated:
            level = self.level + (now - self.updated) * self.rate
            self.level = level if level < self.capacity else self.capacity
            self.updated = now
        return self.level

    def wait_s(self, amount: float, now: float) -> float:
        """Seconds until ``amount`` can be taken (an amount over capacity waits for a full bucket, then owes)."""
        need = amount if amount < self.capacity else self.capacity
        short = need - self.refill(now)
        if short <= 0:
            return 0.0
        return short / self.rate + (self.updated - now if self.updated > now else 0.0)

    def take(self, amount: float, now: float) -> None:
        self.refill(now)
        self.level -= amount

    def give(self, amount: float, now: float) -> None:
        """Return ``amount`` (negative: charge more, when usage exceeded the reservation)."""
        level = self.refill(now) + amount
        self.level = level if level < self.capacity else self.capacity

    def lower_to(self, level: float, now: float) -> float:
        """Lower the level to ``level`` if it is above it (never raise it). Returns the cut."""
        cut = self.refill(now) - level
        if cut > 0:
            self.level = level
            return cut
        return 0.0


class MinuteWindow:
    """What was admitted over the last minute, in quarter-second bins. A sliding-window limiter frees nothing until
    a minute after each request, whatever a bucket refilled meanwhile: capping the window as well keeps a burst
    after a slack spell (a full bucket) from overrunning it. Bin ``k`` holds [k/4, (k+1)/4) and counts for 60 s
    after its end."""

    __slots__ = ("_bins", "_newest", "expired", "total")

    def __init__(self) -> None:
        self._bins = [0.0] * _WINDOW_BINS
        self._newest = 0
        self.total = 0.0
        self.expired = 0.0
        """All that has left the window so far: what a sliding-window limiter has freed of ours (a report's
        ``ReportedLevel`` reads how much since)."""

    def _advance(self, now: float) -> None:
        newest = int(now * _BINS_PER_S)
        if newest <= self._newest:
            return
        if newest - self._newest >= _WINDOW_BINS:
            self._bins, self.expired, self.total = [0.0] * _WINDOW_BINS, self.expired + self.total, 0.0
        else:
            for k in range(self._newest + 1, newest + 1):
                held = self._bins[k % _WINDOW_BINS]
                self.total -= held
                self.expired += held
                self._bins[k % _WINDOW_BINS] = 0.0
        self._newest = newest

    def add(self, amount: float, at: float, now: float) -> None:
        """Count ``amount`` (negative: take back) admitted at ``at``, if that is still in the window."""
        self._advance(now)
        k = int(at * _BINS_PER_S)
        if k > self._newest - _WINDOW_BINS:
            self._bins[k % _WINDOW_BINS] += amount
            self.total += amount

    def wait_s(self, amount: float, limit: float, now: float) -> float:
        """Seconds until ``amount`` more keeps the window within ``limit`` (oversize: until it is empty)."""
        self._advance(now)
        excess = self.total + amount - limit
        if excess <= 0 or self.total < 1:  # an oversize amount goes into an empty window
            return 0.0
        last = self._newest
        for k in range(self._newest - _WINDOW_BINS + 1, self._newest + 1):  # the oldest leave first
            if held := self._bins[k % _WINDOW_BINS]:
                excess, last = excess - held, k
                if excess <= 0:
                    break
        return (last + 1) / _BINS_PER_S + 60.0 - now

    def expired_by(self, now: float) -> float:
        """``expired`` as of ``now``."""
        self._advance(now)
        return self.expired

    def expires_in(self, amount: float, now: float) -> float:
        """Seconds until ``amount`` more of what is in the window has left it (inf: not that much is in it)."""
        self._advance(now)
        if amount <= 0:
            return 0.0
        for k in range(self._newest - _WINDOW_BINS + 1, self._newest + 1):  # the oldest leave first
            if held := self._bins[k % _WINDOW_BINS]:
                amount -= held
                if amount <= 0:
                    return (k + 1) / _BINS_PER_S + 60.0 - now
        return math.inf


# Model-name prefixes (after any 'org/') and the tiktoken encoding their family uses; o200k first ('gpt-4o' is
# also 'gpt-4...'). Other families have no tiktoken encoding: they fall back to ~4 characters a token.
_FAMILIES = (
    (("gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "chatgpt-4o", "gpt-oss", "o1", "o3", "o4", "codex"), "o200k_base"),
    (("gpt-4", "gpt-3.5", "gpt-35", "text-embedding-3", "text-embedding-ada"), "cl100k_base"),
)


def encoding_for(model: str) -> str | None:
    """The tiktoken encoding of a model spec's family ('openai-chat:gpt-4o-mini@http://...' -> 'o200k_base')."""
    name = model.split("@", 1)[0].rsplit(":", 1)[-1].rsplit("/", 1)[-1].lower()
    return next((enc for prefixes, enc in _FAMILIES if name.startswith(prefixes)), None)


class TokenEstimator:
    """Input tokens of a ModelRequest, the way ``tokens.count_messages`` counts them (tools as their JSON), cheaply.

    An episode re-sends its conversation each step with the same ChatMessage objects and the same ToolSpec objects
    (pydantic copies the tuples, not the models in them): each is counted once, cached by identity until it is
    garbage collected, so memory follows the episodes in flight. A count is that of the first model it was sent to.
    A request's tool list, the same objects every step of every episode of a world, is summed once; a ToolCall,
    the same object in the messages an agent rebuilds from its events each turn, is counted once per encoding.
    """

    def __init__(self) -> None:
        self._encodings: dict[str, tiktoken.Encoding | None] = {}
        self._counts: dict[int, tuple[weakref.ref[ChatMessage | ToolSpec], int]] = {}
        self._tool_sets: dict[tuple[int, ...], int] = {}
        """Tool lists' totals by the tools' ids; cleared whenever a counted tool dies (its id may be reused)."""
        self._calls: dict[int, tuple[weakref.ref[ToolCall], tiktoken.Encoding | None, int]] = {}

    def estimate(self, request: ModelRequest) -> int:
        encoding = self._encodings.get(request.model, _UNSET)
        if encoding is _UNSET:
            encoding = self._encodings[request.model] = _load(encoding_for(request.model))
        total = _REPLY_PRIMING
        if tools := request.tools:
            key = tuple(map(id, tools))
            tools_total = self._tool_sets.get(key)
            if tools_total is None:
                tools_total = self._tool_sets[key] = sum(self._counted(tool, encoding) for tool in tools)
            total += tools_total
        counts = self._counts
        for message in request.messages:  # the hit inline: this runs for every message of every request
            hit = counts.get(id(message))
            total += hit[1] if hit is not None and hit[0]() is message else self._counted(message, encoding)
        return total

    def _counted(self, item: ChatMessage | ToolSpec, encoding: tiktoken.Encoding | None) -> int:
        key, counts = id(item), self._counts
        hit = counts.get(key)
        if hit is not None and hit[0]() is item:
            return hit[1]
        if isinstance(item, ChatMessage):
            count, forget = self._count_message(item, encoding), functools.partial(_forget, counts, key)
        else:
            count, forget = _count_tool(item, encoding), functools.partial(_forget_tool, counts, self._tool_sets, key)
        counts[key] = (weakref.ref(item, forget), count)
        return count

    def _count_message(self, message: ChatMessage, encoding: tiktoken.Encoding | None) -> int:
        total = _PER_MESSAGE + _ROLE + (_count(message.content, encoding) if message.content else 0)
        for call in message.tool_calls:
            total += self._count_call(call, encoding)
        if message.tool_call_id:
            total += _count(message.tool_call_id, encoding)
        if message.name:
            total += _PER_NAME + _count(message.name, encoding)
        return total

    def _count_call(self, call: ToolCall, encoding: tiktoken.Encoding | None) -> int:
        key, calls = id(call), self._calls
        hit = calls.get(key)
        if hit is not None and hit[0]() is call and hit[1] is encoding:
            return hit[2]
        arguments = _COMPACT.encode(call.arguments)
        count = _PER_CALL + _count(f"{call.id}{call.name}{arguments}", encoding)
        calls[key] = (weakref.ref(call, functools.partial(_forget, calls, key)), encoding, count)
        return count


_UNSET: Any = object()
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
"""``json.dumps(..., ensure_ascii=False, separators=(",", ":"))``, without building an encoder per call."""
_PER_MESSAGE, _ROLE, _PER_NAME, _PER_CALL, _REPLY_PRIMING = 3, 1, 1, 8, 3  # as tokens.count_messages counts


def _forget(cache: dict[int, Any], key: int, _ref: object) -> None:
    cache.pop(key, None)  # the message was garbage collected: its id may be reused


def _forget_tool(cache: dict[int, Any], sets: dict[tuple[int, ...], int], key: int, _ref: object) -> None:
    cache.pop(key, None)
    sets.clear()  # rare (a world's tools die with it): no set may name a reused id


def _load(name: str | None) -> tiktoken.Encoding | None:
    if name is None:
        return None
    try:
        return get_encoding(name)
    except TokenizerUnavailable:  # offline files not built: estimate from characters rather than fail the run
        return None


def _count(text: str, encoding: tiktoken.Encoding | None) -> int:
    if encoding is None:
        return (len(text) + 3) // 4
    return len(encoding.encode_ordinary(text))  # special-token text counts as plain text, as in tokens.py


def _count_tool(tool: ToolSpec, encoding: tiktoken.Encoding | None) -> int:
    return 1 + _count(_COMPACT.encode(tool.to_openai()), encoding)
