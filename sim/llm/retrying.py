"""The gateway's retry loop: each attempt admitted by the admission policy, sent, its failure classified, retried
as the policy says; the request's usage handed to its caller once, as a value, however the request ends."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from sim.core import ModelRequest, ModelResponse, Usage
from sim.core.trusted import trusted
from sim.llm.admission.policy import AdmissionPolicy
from sim.llm.completer import Caller, Route
from sim.llm.errors import ContextLengthExceeded
from sim.llm.transports.base import TransportError


class RetryingCompleter:
    """Every second of a request is spent inside ``caller.waiting()``: admission, backoff and the send itself, so
    an episode never counts time on the provider against its deadline (a provider hanging past the request
    timeout on every attempt ends the episode as ``provider:timeout`` when retries run out, not as the harness's
    timeout). The request's own account still tells the two apart: time inside sends is its ``working_s``, the
    rest its ``waiting_s``."""

    def __init__(self, admission: AdmissionPolicy, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self._admission = admission
        self._sleep = sleep

    async def complete(self, request: ModelRequest, route: Route, caller: Caller) -> ModelResponse:
        """Raises ProviderError when the policy gives up, ContextLengthExceeded when the request is too long for
        the model (the agent's fault: never retried)."""
        transport = route.transport
        admission = self._admission.open(request, route.endpoint)
        answer: ModelResponse | None = None
        retries = 0
        working_s = waiting_s = 0.0
        try:
            # One wait around every attempt, backoff included (not one per admission and per send): entering the
            # episode's clock is per-request work too.
            with caller.waiting():
                while True:
                    waiting_s += await admission.enter()
                    started = time.monotonic()
                    try:
                        reply = await transport.send(request)
                    except TransportError as error:
                        if error.kind == "context_length":
                            raise ContextLengthExceeded(str(error)) from error  # leave() counts it as a failed attempt
                        retry = admission.failed(error)  # raises ProviderError when it gives up
                        # What the retry event says, not the error: an error kept in a local of the frame its
                        # traceback holds is a reference cycle that keeps the whole episode alive until the cyclic
                        # collector runs.
                        failure_code, failure_text = error.code, str(error)
                    else:
                        admission.succeeded(reply)
                        answer = reply.response
                        return answer
                    finally:
                        working_s += time.monotonic() - started
                        admission.leave()
                    retries += 1
                    caller.retrying(failure_code, f"{failure_text}; retry in {retry.delay_s:.2f}s")
                    if retry.sleep:
                        await self._sleep(retry.delay_s)
                        waiting_s += retry.delay_s
        finally:
            caller.charge(request, _spent(answer, retries, working_s, waiting_s), answer)


def _spent(answer: ModelResponse | None, retries: int, working_s: float, waiting_s: float) -> Usage:
    # Unvalidated (sim.core.trusted): the answer's fields are validated already, the times are floats.
    if answer is None:  # given up, refused or cancelled: the time and the retries still count
        return trusted(
            Usage,
            {"requests": 0, "input_tokens": 0, "output_tokens": 0, "cost": 0.0, "retries": retries, "cached": 0,
             "working_s": working_s, "waiting_s": waiting_s, "cached_input_tokens": 0, "reasoning_tokens": 0,
             "truncated": 0},
            _GIVEN_UP,
        )  # fmt: skip
    return trusted(
        Usage,
        {"requests": 1, "input_tokens": answer.input_tokens, "output_tokens": answer.output_tokens,
         "cost": answer.cost, "retries": retries, "cached": 0, "working_s": working_s, "waiting_s": waiting_s,
         "cached_input_tokens": answer.cached_input_tokens, "reasoning_tokens": answer.reasoning_tokens,
         "truncated": int(answer.truncated)},
        _ANSWERED,
    )  # fmt: skip


_GIVEN_UP = ("retries", "working_s", "waiting_s")
_ANSWERED = (
    "requests",
    "input_tokens",
    "output_tokens",
    "cost",
    "retries",
    "working_s",
    "waiting_s",
    "cached_input_tokens",
    "reasoning_tokens",
    "truncated",
)
