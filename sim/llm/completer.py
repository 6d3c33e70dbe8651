"""The seam inside the gateway: what answers one request, and who the request is made for.

A gateway answers through a chain of completers built once: the response cache (when there is one) around the
retry loop, which sends under the admission policy. No layer branches on what the others are.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Protocol

from sim.core import ModelRequest, ModelResponse, Usage
from sim.llm.transports.base import Transport

Waiting = Callable[[], AbstractContextManager[None]]
"""Entered while a request waits (for admission, before a retry): an episode pauses its working-time deadline."""


@dataclass(frozen=True, slots=True)
class Route:
    """Where a model's requests go: its transport, and the endpoint whose limits admit them."""

    transport: Transport
    endpoint: str


class Caller(Protocol):
    """Who a request is made for: told what it spent, when it is retried, and how to mark time spent waiting."""

    def charge(self, request: ModelRequest, usage: Usage, response: ModelResponse | None = None) -> None:
        """Told once per request, however it ends (answered, given up, cancelled): what it spent, as a value, and
        the response when there is one (what the trace keeps of it besides its tokens: reasoning, a cut reply)."""
        ...

    def retrying(self, code: str, detail: str) -> None:
        """An attempt failed and the request goes again (``code`` is a ``provider:`` error code)."""
        ...

    @property
    def waiting(self) -> Waiting: ...


class Untracked:
    """A caller that keeps no account (a judge's model handle, a one-off request)."""

    def charge(self, request: ModelRequest, usage: Usage, response: ModelResponse | None = None) -> None:
        return None

    def retrying(self, code: str, detail: str) -> None:
        return None

    @property
    def waiting(self) -> Waiting:
        return nullcontext


class Completer(Protocol):
    async def complete(self, request: ModelRequest, route: Route, caller: Caller) -> ModelResponse:
        """The model's answer to ``request``. Raises ProviderError (given up) or ContextLengthExceeded."""
        ...
