"""The one door every model call goes through: transports, per-endpoint admission, retries, accounting.

A run owns exactly one Gateway. Every call is a ``ModelRequest`` value, so the gateway can resolve its
transport, admit it under the endpoint's limits, retry it, and charge its usage to the right role.
Each episode talks to it through an ``EpisodeLLM`` handle, which counts only agent-role requests
against the agent's per-turn step budget and attributes usage and waiting time per role.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING

from sim.core import MODEL_ROLES, Event, ModelRequest, ModelResponse, Usage
from sim.llm.admission.scheduler import EndpointLimits, Scheduler
from sim.llm.errors import ContextLengthExceeded, ProviderError, StepLimitReached
from sim.llm.model_spec import parse_model_spec
from sim.llm.retry_policy import RetryPolicy
from sim.llm.transports.base import Reply, Transport, TransportError

if TYPE_CHECKING:
    import aiohttp

    from sim.llm.cache import ResponseCache

OnRetry = Callable[[str, str], None]
Waiting = Callable[[], AbstractContextManager[None]]


class Gateway:
    """Run-level owner of model access. Holds no per-episode state."""

    def __init__(
        self,
        concurrency_per_endpoint: int = 16,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        seed: int = 0,
        request_timeout_s: float = 120.0,
        static: bool = False,
        cache: ResponseCache | None = None,
        scheduler: Scheduler | None = None,
    ) -> None:
        self.concurrency_per_endpoint = concurrency_per_endpoint
        self.static = static
        """The peer way, for comparison: a fixed connection limit and blind backoff (Retry-After ignored)."""
        self.scheduler = scheduler or Scheduler(
            EndpointLimits(concurrency=concurrency_per_endpoint), max_concurrency=concurrency_per_endpoint
        )
        """Admission per endpoint: adaptive connection limit, TPM/RPM budgets, rate-limit pauses."""
        self.retry = retry or RetryPolicy()
        self.request_timeout_s = request_timeout_s
        self._sleep = sleep
        self._slots: dict[str, asyncio.Semaphore] = {}
        self._jitter = random.Random(seed)
        self._transports: dict[str, Transport] = {}
        self._session: aiohttp.ClientSession | None = None
        self.cache = cache
        """Shared by every role; a hit makes no endpoint request and is counted as ``cached``, not as a request."""
        self.totals = Usage()

    def register(self, model: str, transport: Transport) -> None:
        """Serve ``model`` with this transport (scripted models in tests, embedded servers)."""
        self._transports[model] = transport

    def registered(self) -> list[str]:
        """The models served by a registered (not built) transport."""
        return list(self._transports)

    def unregister(self, model: str) -> None:
        self._transports.pop(model, None)

    def transport(self, model: str) -> Transport:
        """The transport for a model spec, built on first use. Raises ValueError (bad spec, unknown provider,
        missing package or API key) — callers resolve their models before a run starts."""
        found = self._transports.get(model)
        if found is None:
            found = self._transports[model] = self._build_transport(model)
        return found

    def http(self) -> aiohttp.ClientSession:
        """The run's HTTP session (created on first use, inside the running loop)."""
        if self._session is None:
            from sim.llm.transports.openai_chat import new_session

            self._session = new_session()
        return self._session

    def _build_transport(self, model: str) -> Transport:
        spec = parse_model_spec(model)
        if spec.base_url is not None or spec.raw.startswith("openai-chat:"):
            from sim.llm.transports.openai_chat import OpenAIChatTransport

            return OpenAIChatTransport(self.http(), spec.base_url, spec.name, self.request_timeout_s)
        from pydantic_ai.models import infer_model

        from sim.llm.transports.pydantic_ai import PydanticAITransport

        return PydanticAITransport(infer_model(spec.raw))

    async def aclose(self) -> None:
        await self.scheduler.aclose()
        if self.cache is not None:
            await self.cache.aclose()
        for transport in self._transports.values():
            await transport.aclose()
        if self._session is not None:
            await self._session.close()

    def _slot(self, endpoint: str) -> asyncio.Semaphore:
        if endpoint not in self._slots:
            self._slots[endpoint] = asyncio.Semaphore(self.concurrency_per_endpoint)
        return self._slots[endpoint]

    async def complete(
        self, request: ModelRequest, usage: Usage, on_retry: OnRetry | None = None, waiting: Waiting = nullcontext
    ) -> ModelResponse:
        """Run one request with a slot on its endpoint, retrying rate limits and transient faults.

        Rate limits wait as long as the provider asks (Retry-After), within a time budget of their own;
        other transient faults back off within ``max_attempts``. Time spent waiting for a slot or before a
        retry is charged to ``usage.waiting_s`` and runs inside ``waiting()`` (the episode does not count it
        against its deadline); time inside requests goes to ``usage.working_s``. Raises ProviderError when
        it gives up, ContextLengthExceeded when the request is too long for the model.
        """
        transport = self.transport(request.model)
        if self.cache is not None:
            hit = await self.cache.get(request)
            if hit is not None:
                usage.cached += 1
                return hit
        endpoint = parse_model_spec(request.model).endpoint
        tokens = 0 if self.static else self.scheduler.estimate_tokens(request)
        policy = self.retry
        attempts = malformed = limited = 0
        rate_limited_s = 0.0
        while True:
            reply, error, paused = await self._attempt(transport, request, endpoint, tokens, usage, waiting, limited)
            if reply is not None:
                response = reply.response
                usage.requests += 1
                usage.input_tokens += response.input_tokens
                usage.output_tokens += response.output_tokens
                usage.cost += response.cost
                if self.cache is not None:
                    await self.cache.put(request, response)
                return response
            assert error is not None
            if error.kind == "context_length":
                raise ContextLengthExceeded(str(error)) from error
            if self.static:
                attempts += 1
                delay = self._blind_backoff(attempts)
                give_up = error.kind == "fatal" or attempts >= policy.max_attempts
            elif error.kind == "rate_limit":
                limited += 1
                # The scheduler pauses the endpoint (Retry-After, reset headers or backoff): the next admission
                # waits it out, so there is nothing to sleep here; the policy still bounds how long we wait.
                delay = paused
                rate_limited_s += delay
                give_up = delay > policy.max_retry_after_s or rate_limited_s > policy.rate_limit_budget_s
            else:
                attempts += 1
                malformed += error.kind == "malformed"
                delay = self._delay(attempts, error.retry_after_s, cap=True)
                give_up = error.kind == "fatal" or attempts >= policy.max_attempts or malformed >= policy.max_malformed
            if give_up:
                raise ProviderError(
                    error.code, f"{error} (gave up after {attempts + limited} failed attempt(s))"
                ) from error
            usage.retries += 1
            if on_retry is not None:
                on_retry(error.code, f"{error}; retry in {delay:.2f}s")
            if self.static or error.kind != "rate_limit":
                with waiting():
                    await self._sleep(delay)
                usage.waiting_s += delay

    async def _attempt(
        self,
        transport: Transport,
        request: ModelRequest,
        endpoint: str,
        tokens: int,
        usage: Usage,
        waiting: Waiting,
        retries: int,
    ) -> tuple[Reply | None, TransportError | None, float]:
        """One admitted attempt: (reply, None, 0) or (None, error, the pause a rate limit set)."""
        if self.static:
            slot = self._slot(endpoint)
            queued = time.monotonic()
            with waiting():
                await slot.acquire()
            usage.waiting_s += time.monotonic() - queued
            try:
                return await self._send(transport, request, usage)
            finally:
                slot.release()
        permit = self.scheduler.admit(endpoint, tokens, request.max_tokens, retry=retries > 0)
        with waiting():
            await permit.acquire()
        usage.waiting_s += permit.waited_s
        try:
            reply, error, _ = await self._send(transport, request, usage)
            if reply is not None:
                permit.completed(reply.response.input_tokens, reply.response.output_tokens, reply.headers)
                return reply, None, 0.0
            assert error is not None
            if error.kind == "rate_limit":
                return None, error, permit.rate_limited(error.retry_after_s, error.headers)
            if error.kind == "malformed":
                permit.completed(0, 0, error.headers)  # billed, usage unknown: the reservation stands
            else:
                permit.failed()
            return None, error, 0.0
        finally:
            permit.release()  # without an outcome (cancelled, a bug) it counts as failed

    @staticmethod
    async def _send(
        transport: Transport, request: ModelRequest, usage: Usage
    ) -> tuple[Reply | None, TransportError | None, float]:
        started = time.monotonic()
        try:
            return await transport.send(request), None, 0.0
        except TransportError as exc:
            return None, exc, 0.0
        finally:
            usage.working_s += time.monotonic() - started

    def _blind_backoff(self, attempt: int) -> float:
        """Exponential backoff from 1 s with jitter, capped at a minute, whatever the provider said."""
        return min(2.0 ** (attempt - 1) * (0.5 + self._jitter.random()), 60.0)

    def _delay(self, attempt: int, retry_after: float | None, cap: bool = False) -> float:
        """Retry-After as asked (a transient error's is capped like a backoff); else jittered exponential backoff."""
        policy = self.retry
        if retry_after is not None:
            return min(max(retry_after, 0.0), policy.max_retry_after_s if cap else float("inf"))
        backoff = policy.base_delay_s * 2 ** (attempt - 1)
        return min(backoff * (0.5 + self._jitter.random()), policy.max_delay_s)


class EpisodeLLM:
    """One episode's handle on the gateway: the agent's step budget per turn, usage per role, provider-fault
    events. Implements the contract's LLMHandle."""

    def __init__(
        self,
        gateway: Gateway,
        max_steps: int,
        record: Callable[[Event], None],
        clock: Callable[[], float],
    ) -> None:
        self.gateway = gateway
        self.max_steps = max_steps
        self.usage = Usage()
        self.by_role: dict[str, Usage] = {}
        self.turn_usage = Usage()
        """The agent's usage in the current turn (shown on its agent_message event)."""
        self._record = record
        self._clock = clock
        self.turn = 0
        self.goal: int | None = None
        self.steps = 0
        self.waiting: Waiting = nullcontext
        """Entered while the gateway waits (slots, Retry-After); the episode pauses its deadline there."""

    def start_turn(self, turn: int, goal: int | None = None) -> None:
        self.turn, self.goal, self.steps, self.turn_usage = turn, goal, 0, Usage()

    async def complete(self, request: ModelRequest) -> ModelResponse:
        if request.role == "agent":
            if self.steps >= self.max_steps:
                raise StepLimitReached(f"more than {self.max_steps} model requests in turn {self.turn}")
            self.steps += 1
        call = Usage()
        try:
            return await self.gateway.complete(request, call, self._on_retry, self.waiting)
        finally:
            accounts = [self.usage, self.by_role.setdefault(request.role, Usage()), self.gateway.totals]
            if request.role == "agent":
                accounts.append(self.turn_usage)
            for account in accounts:
                account.add(call)

    def usage_by_role(self) -> dict[str, Usage]:
        return {role: self.by_role[role] for role in MODEL_ROLES if role in self.by_role}

    def _on_retry(self, code: str, detail: str) -> None:
        self._record(
            Event(
                kind="error",
                turn=self.turn,
                goal=self.goal,
                step=self.steps,
                t=self._clock(),
                fault="provider",
                code=code,
                content=detail,
            )
        )
