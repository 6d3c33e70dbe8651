"""Scripted gateway parts for tests: virtual sleep, a transport that fails as told, a caller that keeps accounts."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from contextlib import nullcontext

from sim.core import ChatMessage, ModelRequest, ModelResponse, Usage
from sim.llm.admission.scheduled import ScheduledAdmission
from sim.llm.admission.scheduler import EndpointLimits, Scheduler
from sim.llm.gateway import Gateway
from sim.llm.retry_policy import RetryPolicy
from sim.llm.transports.base import Reply, TransportError


class FakeSleep:
    """Virtual time: sleeping advances the clock at once (the gateway and its scheduler share it)."""

    def __init__(self) -> None:
        self.calls: list[float] = []
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    async def __call__(self, seconds: float) -> None:
        self.calls.append(round(seconds, 6))
        self.now += seconds
        await asyncio.sleep(0)


def rate_limited(retry_after: float | None) -> TransportError:
    return TransportError("rate_limit", "provider:rate_limited", "Rate limit reached", retry_after_s=retry_after)


def server_error() -> TransportError:
    return TransportError("transient", "provider:http_503", "overloaded")


class Scripted:
    """A transport that raises the given errors, in order, then answers."""

    def __init__(self, errors: list[BaseException], text: str = "ok") -> None:
        self.errors = errors
        self.text = text
        self.attempts = 0

    async def send(self, request: ModelRequest) -> Reply:
        self.attempts += 1
        if self.errors:
            raise self.errors.pop(0)
        return Reply(ModelResponse(text=self.text, input_tokens=10, output_tokens=2))

    async def aclose(self) -> None:
        return None


class Replaying:
    """A transport that plays its replies in order (a text, or a whole response; the last again past the end) and
    keeps every request it was sent."""

    def __init__(self, replies: Sequence[str | ModelResponse]) -> None:
        self.replies = [ModelResponse(text=r) if isinstance(r, str) else r for r in replies]
        self.requests: list[ModelRequest] = []

    async def send(self, request: ModelRequest) -> Reply:
        self.requests.append(request)
        return Reply(self.replies[min(len(self.requests), len(self.replies)) - 1])

    async def aclose(self) -> None:
        return None


def gateway_with(transport: object, sleep: FakeSleep | None = None, retry: RetryPolicy | None = None) -> Gateway:
    sleep = sleep or FakeSleep()
    scheduler = Scheduler(EndpointLimits(concurrency=16), clock=sleep.clock, sleep=sleep)
    gw = Gateway(ScheduledAdmission(scheduler, retry), sleep=sleep)
    gw.register("scripted", transport)  # type: ignore[arg-type]
    return gw


def ask(role: str = "agent") -> ModelRequest:
    return ModelRequest(role=role, model="scripted", messages=(ChatMessage(role="user", content="hi"),))  # type: ignore[arg-type]


class Account:
    """A caller that keeps what it is told: each request's usage and the retries."""

    def __init__(self) -> None:
        self.charged: list[Usage] = []
        self.retries: list[str] = []

    def charge(self, request: ModelRequest, usage: Usage, response: ModelResponse | None = None) -> None:
        self.charged.append(usage)

    def retrying(self, code: str, detail: str) -> None:
        self.retries.append(code)

    waiting = staticmethod(nullcontext)


async def complete(gw: Gateway, caller: Account | None = None) -> str:
    return (await gw.complete(ask(), caller or Account())).text
