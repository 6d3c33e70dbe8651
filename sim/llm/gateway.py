"""The one door every model call goes through: transports, per-endpoint admission, retries, accounting.

A run owns exactly one Gateway. Every call is a ``ModelRequest`` value, so the gateway can resolve its
transport, admit it under the endpoint's limits, retry it, and tell its caller what it spent. What varies is
chosen once, when the gateway is built: the admission policy (squall's scheduler or the static baseline) and
whether a response cache answers first. Each episode talks to it through an ``EpisodeLLM`` handle, which
counts only agent-role requests against the agent's per-turn step budget and sums usage per role.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from contextlib import nullcontext
from typing import TYPE_CHECKING

from sim.core import MODEL_ROLES, Event, FaultKind, ModelCall, ModelRequest, ModelResponse, Usage
from sim.core.model_io import OUTPUT_TRUNCATED
from sim.core.trusted import trusted
from sim.llm.admission.policy import AdmissionPolicy
from sim.llm.admission.scheduled import ScheduledAdmission
from sim.llm.admission.scheduler import EndpointLimits, Scheduler
from sim.llm.cached_completer import CachedCompleter
from sim.llm.completer import Caller, Completer, Route, Untracked, Waiting
from sim.llm.endpoints import EndpointSettings, find_endpoint
from sim.llm.errors import StepLimitReached
from sim.llm.model_spec import parse_model_spec
from sim.llm.retrying import RetryingCompleter
from sim.llm.transports.base import Transport
from sim.llm.usage_tally import UsageTally

if TYPE_CHECKING:
    from sim.llm.cache import ResponseCache
    from sim.llm.transports.http1 import Http1Pool

UNTRACKED = Untracked()
_DEFAULT_CONNECTIONS = 16


class Gateway:
    """Run-level owner of model access. Holds no per-episode state."""

    def __init__(
        self,
        admission: AdmissionPolicy | None = None,
        *,
        cache: ResponseCache | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        request_timeout_s: float = 120.0,
        connect_timeout_s: float | None = None,
        endpoints: Mapping[str, EndpointSettings] | None = None,
    ) -> None:
        self.admission = admission or ScheduledAdmission(
            Scheduler(EndpointLimits(concurrency=_DEFAULT_CONNECTIONS), max_concurrency=_DEFAULT_CONNECTIONS)
        )
        """How attempts are admitted and retried: squall's scheduler, or the static baseline for comparison."""
        self.cache = cache
        """Shared by every role; a hit makes no endpoint request and is counted as ``cached``, not as a request."""
        self.request_timeout_s = request_timeout_s
        self.connect_timeout_s = connect_timeout_s
        """None: 10 s, scaled with the requests in flight (see OpenAIChatTransport.connect_timeout)."""
        self.endpoints: Mapping[str, EndpointSettings] = endpoints or {}
        """The run's ``[endpoints.NAME]`` tables: a model names one (``@NAME``) or is served at one's base URL."""
        retrying = RetryingCompleter(self.admission, sleep)
        self._completer: Completer = retrying if cache is None else CachedCompleter(retrying, cache)
        self._transports: dict[str, Transport] = {}
        self._routes: dict[str, Route] = {}
        self._session: Http1Pool | None = None
        self.tally = UsageTally()
        """Where the run's episode handles add what they spend (``totals`` reads it)."""

    @property
    def totals(self) -> Usage:
        """Everything the run's episode handles spent (the cost ceiling reads it)."""
        return self.tally.value()

    def register(self, model: str, transport: Transport) -> None:
        """Serve ``model`` with this transport (scripted models in tests, embedded servers)."""
        self._transports[model] = transport
        self._routes.pop(model, None)

    def registered(self) -> list[str]:
        """The models with a transport, registered or built."""
        return list(self._transports)

    def unregister(self, model: str) -> None:
        self._transports.pop(model, None)
        self._routes.pop(model, None)

    def transport(self, model: str) -> Transport:
        """The transport for a model spec, built on first use. Raises ValueError (bad spec, unknown provider,
        missing package or API key) — callers resolve their models before a run starts."""
        found = self._transports.get(model)
        if found is None:
            found = self._transports[model] = self._build_transport(model)
        return found

    def route(self, model: str) -> Route:
        """The model's transport and the endpoint that admits its requests (kept: parsing the spec per request
        would cost every request)."""
        found = self._routes.get(model)
        if found is None:
            found = self._routes[model] = Route(self.transport(model), parse_model_spec(model).endpoint)
        return found

    def http(self) -> Http1Pool:
        """The run's HTTP connection pool (created on first use, inside the running loop)."""
        if self._session is None:
            from sim.llm.transports.openai_chat import new_session

            self._session = new_session()
        return self._session

    def _build_transport(self, model: str) -> Transport:
        spec = parse_model_spec(model)
        settings = find_endpoint(self.endpoints, spec.endpoint_name, spec.base_url)
        if spec.endpoint_name is not None and settings is None:
            known = ", ".join(sorted(self.endpoints)) or "none is configured"
            raise ValueError(f"model {model!r}: no endpoint named {spec.endpoint_name!r} ([endpoints.NAME]: {known})")
        if settings is not None or spec.base_url is not None or spec.raw.startswith("openai-chat:"):
            from sim.llm.transports.openai_chat import OpenAIChatTransport

            base_url = settings.base_url if settings is not None else spec.base_url
            return OpenAIChatTransport(
                self.http(),
                base_url,
                spec.name,
                self.request_timeout_s,
                connect_timeout_s=self.connect_timeout_s,
                settings=settings,
            )
        from pydantic_ai.models import infer_model

        from sim.llm.transports.pydantic_ai import PydanticAITransport

        return PydanticAITransport(infer_model(spec.raw))

    async def aclose(self) -> None:
        await self.admission.aclose()
        if self.cache is not None:
            await self.cache.aclose()
        for transport in self._transports.values():
            await transport.aclose()
        if self._session is not None:
            await self._session.close()

    async def complete(self, request: ModelRequest, caller: Caller = UNTRACKED) -> ModelResponse:
        """The model's answer, from the cache or the endpoint, retried as the admission policy says.

        ``caller.charge`` is told once what the request spent (usage as a value: tokens, retries, working and
        waiting time), whether it was answered, gave up or was cancelled. Raises ProviderError when it gives up,
        ContextLengthExceeded when the request is too long for the model, ValueError for a model it cannot reach.
        """
        return await self._completer.complete(request, self.route(request.model), caller)


def truncation_detail(response: ModelResponse) -> str:
    """What a cut reply's fault says: the limit that cut it (or that none was sent) and what the provider said."""
    limit = response.output_limit
    where = f"the output limit of {limit} tokens" if limit is not None else "the provider's own output limit"
    sent = "" if limit is not None else " (no max_tokens was sent)"
    return (
        f"reply cut at {where}{sent}: finish_reason {response.finish_reason!r} after {response.output_tokens} "
        f"output tokens"
    )


class EpisodeLLM:
    """One episode's handle on the gateway: the agent's step budget per turn, usage per role, provider-fault
    events. Implements the contract's LLMHandle."""

    def __init__(
        self,
        gateway: Gateway,
        max_steps: int,
        record: Callable[[Event], None],
        clock: Callable[[], float],
        keep_calls: bool = False,
    ) -> None:
        self.gateway = gateway
        self.max_steps = max_steps
        # Sums kept as tallies, read as values (four Usage values built per request cost more than the rest of
        # the charge).
        self._usage = UsageTally()
        self._by_role: dict[str, UsageTally] = {}
        self._turn_usage = UsageTally()
        self.calls: list[ModelCall] = []
        """With ``keep_calls`` (an episode's handle; not a generator's, whose requests never end): every request
        charged through the gateway, as the trace keeps it (tokens and latency per step)."""
        self._keep_calls = keep_calls
        self._record = record
        self._clock = clock
        self.turn = 0
        self.goal: int | None = None
        self.steps = 0
        self.waiting: Waiting = nullcontext
        """Entered while the gateway waits (slots, Retry-After); the episode pauses its deadline there."""

    @property
    def usage(self) -> Usage:
        return self._usage.value()

    @property
    def by_role(self) -> dict[str, Usage]:
        return {role: tally.value() for role, tally in self._by_role.items()}

    @property
    def turn_usage(self) -> Usage:
        """The agent's usage in the current turn (shown on its agent_message event)."""
        return self._turn_usage.value()

    def start_turn(self, turn: int, goal: int | None = None) -> None:
        self.turn, self.goal, self.steps, self._turn_usage = turn, goal, 0, UsageTally()

    async def complete(self, request: ModelRequest) -> ModelResponse:
        if request.role == "agent":
            if self.steps >= self.max_steps:
                raise StepLimitReached(f"more than {self.max_steps} model requests in turn {self.turn}")
            self.steps += 1
        return await self.gateway.complete(request, self)

    def charge(self, request: ModelRequest, usage: Usage, response: ModelResponse | None = None) -> None:
        """Each request's usage, added to the episode's, its role's, the turn's (agent only) and the run's totals,
        and recorded as the request's own line of the trace; an agent's reply cut at the output limit is recorded
        as the agent's fault (``agent:output_truncated``), whatever the agent makes of it."""
        if self._keep_calls:
            self._keep(request, usage, response)
        self.charge_role(request.role, usage)
        if response is not None and request.role == "agent" and response.truncated:
            self._fault("agent", OUTPUT_TRUNCATED, truncation_detail(response))

    def _keep(self, request: ModelRequest, usage: Usage, response: ModelResponse | None) -> None:
        # Unvalidated (sim.core.trusted): every field is already of its type.
        role = request.role
        cut = response is not None and response.truncated
        self.calls.append(
            trusted(
                ModelCall,
                {
                    "role": role,
                    "turn": self.turn,
                    "goal": self.goal,
                    "step": self.steps if role == "agent" else 0,
                    "t": float(self._clock()),  # a test's clock may count in ints
                    "input_tokens": usage.input_tokens,
                    "output_tokens": usage.output_tokens,
                    "latency_s": round(usage.working_s, 4),
                    "waiting_s": round(usage.waiting_s, 4),
                    "retries": usage.retries,
                    "cached": usage.cached > 0,
                    "cached_input_tokens": usage.cached_input_tokens,
                    "reasoning_tokens": usage.reasoning_tokens,
                    "truncated": cut,
                    "output_limit": response.output_limit if cut and response is not None else None,
                    "reasoning": response.reasoning if response is not None else "",
                },
            )
        )

    def charge_role(self, role: str, usage: Usage) -> None:
        """Usage spent outside the gateway, as whoever spent it reports it (an outside agent's own model calls)."""
        self._usage.add(usage)
        spent = self._by_role.get(role)
        if spent is None:
            self._by_role[role] = UsageTally(usage)  # a role's sum opens with its first usage, not Usage() + it
        else:
            spent.add(usage)
        if role == "agent":
            self._turn_usage.add(usage)
        self.gateway.tally.add(usage)

    def usage_by_role(self) -> dict[str, Usage]:
        by_role = self._by_role
        return {role: by_role[role].value() for role in MODEL_ROLES if role in by_role}

    def retrying(self, code: str, detail: str) -> None:
        self._fault("provider", code, detail)

    def _fault(self, fault: FaultKind, code: str, detail: str) -> None:
        self._record(
            Event(
                kind="error",
                turn=self.turn,
                goal=self.goal,
                step=self.steps,
                t=self._clock(),
                fault=fault,
                code=code,
                content=detail,
            )
        )
