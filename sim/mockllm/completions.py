"""One chat completion, from the request body to the answer's bytes, shared by both HTTP front ends (server.py's
aiohttp app and fast_http.py): the same decisions, counters and bytes whichever one received the request.

A completion runs in three synchronous steps, so a front end may wait between them however it likes:
``admit`` (a bad body, a turned-away fault or a 429 answers at once; else an ``Admitted``), ``delay_s`` (after
``hang_s``: the latency draw) and ``finish`` (after the delay: the answer).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sim.mockllm.config import FaultRule, MockConfig
from sim.mockllm.faults import FaultInjector
from sim.mockllm.latency import LatencySampler
from sim.mockllm.limits import RateLimiter
from sim.mockllm.policies import Policy, Reply, build_policy
from sim.mockllm.replies import (
    RawReply,
    completion_body,
    completion_tokens,
    error_reply,
    malformed_reply,
    prompt_tokens,
    rate_limit_reply,
    server_error_reply,
)
from sim.mockllm.request_body import BodyParser
from sim.mockllm.stats import ServerStats, bump


@dataclass(slots=True)
class Admitted:
    """A completion the limiter let through, waiting out its hang (``hang_s``) and latency before ``finish``."""

    ordinal: int
    reply: Reply
    prompt: int
    completion: int
    rule: FaultRule | None
    limit_headers: dict[str, str]

    @property
    def hang_s(self) -> float | None:
        """Seconds a timeout fault hangs before the latency draw (None: no hang)."""
        return self.rule.hang_s if self.rule is not None and self.rule.kind == "timeout" else None


class Completions:
    """Request handling's state and decisions; one instance per server."""

    def __init__(self, config: MockConfig, policy: Policy | None, clock: Callable[[], float]) -> None:
        self.config = config
        self.stats = ServerStats()
        self._policy = policy if policy is not None else build_policy(config.policy)
        self._faults = FaultInjector(config.faults, config.seed)
        # The limiter's clock is injectable: a test steps it to cross minutes without waiting them.
        self._limiter = RateLimiter(config.rate_limit, config.model, clock) if config.rate_limit else None
        self._latency = LatencySampler(config)
        self._body = BodyParser()

    def start(self) -> int:
        """A chat completion arrives: count it; its 1-based ordinal (the fault rules' request number)."""
        stats = self.stats
        stats.completions += 1
        stats.in_flight += 1
        if stats.in_flight > stats.max_in_flight:
            stats.max_in_flight = stats.in_flight
        return stats.completions

    def answered(self, status: int) -> None:
        """Any request answered (not cancelled): count its status."""
        bump(self.stats.by_status, status)
        if status == 429:
            self.stats.rate_limited += 1

    def _limit_headers(self) -> dict[str, str]:
        return self._limiter.headers() if self._limiter is not None else {}

    def _bad_request(self, message: str, code: str) -> RawReply:
        return error_reply(400, message, "invalid_request_error", code, self._limit_headers())

    def admit(self, raw: bytes, ordinal: int) -> RawReply | Admitted:
        """Steps 1-3 of a completion:

        1. a bad body or stream=true: 400; 2. the fault draw: a rate_limit or server_error fault answers at once and
        is not charged to the limits (the provider turned it away); 3. the limiter: 429 (requests, tokens, too
        large), or the request is admitted and charged 1 request and its usage.total_tokens. Then (the front end)
        4. a timeout fault hangs hang_s, then the latency draw (``delay_s``); 5. ``finish``: a malformed fault's body,
        or the completion.
        """
        try:
            body = self._body.parse(raw)
        except ValueError:  # invalid JSON or UTF-8
            return self._bad_request("Request body is not valid JSON.", "invalid_json")
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or not body["messages"]:
            return self._bad_request("'messages' must be a non-empty list.", "invalid_request")
        messages: list[dict[str, Any]] = body["messages"]
        if not all(isinstance(m, dict) for m in messages):
            return self._bad_request("Each message must be an object.", "invalid_request")
        tools = body.get("tools") or []
        if not isinstance(tools, list):
            return self._bad_request("'tools' must be a list.", "invalid_request")
        if body.get("stream"):
            return self._bad_request(
                "Streaming is not supported by the squall mock LLM server; send stream=false.", "stream_not_supported"
            )

        stats = self.stats
        rule = self._faults.match(ordinal)
        # A 429 or 5xx fault is the provider turning the request away before any work: nothing is charged.
        if rule is not None and rule.kind == "rate_limit":
            bump(stats.faults, rule.kind)
            bump(stats.rate_limited_by, "fault")
            message = f"Rate limit reached. Please try again in {rule.retry_after_s:g}s."
            answer = rate_limit_reply(message, "requests", rule.retry_after_s, rule.retry_after_ms_header)
            return _with_headers(answer, self._limit_headers())
        if rule is not None and rule.kind == "server_error":
            bump(stats.faults, rule.kind)
            return _with_headers(server_error_reply(rule.status), self._limit_headers())

        # The policy is a pure function of the request, so the completion (and its tokens) is known at admission.
        reply = self._policy.respond(messages, tools)
        prompt, completion = prompt_tokens(raw), completion_tokens(reply)
        limit_headers: dict[str, str] = {}
        if self._limiter is not None:
            decision = self._limiter.acquire(prompt + completion)
            limit_headers = self._limiter.headers()  # as of admission, as a provider's gateway sends them
            if not decision.admitted:
                assert decision.reason is not None
                bump(stats.rate_limited_by, decision.reason)
                kind = "requests" if decision.reason == "requests" else "tokens"
                with_ms = self._limiter.config.retry_after_ms_header
                answer = rate_limit_reply(decision.message, kind, decision.wait_s, with_ms)
                return _with_headers(answer, limit_headers)
        stats.admitted += 1
        stats.tokens_charged += prompt + completion
        if rule is not None:  # timeout or malformed: admitted work that goes wrong on the way back
            bump(stats.faults, rule.kind)
        # Only the answer is kept while waiting, not the parsed conversation: thousands of requests waiting would
        # otherwise keep their object trees alive, and every garbage-collector pass would walk them all.
        return Admitted(ordinal, reply, prompt, completion, rule, limit_headers)

    def delay_s(self, admitted: Admitted) -> float:
        """Step 4, after any hang: the latency draw (seconds to wait before ``finish``)."""
        return self._latency.delay_s(admitted.prompt, admitted.completion)

    def finish(self, admitted: Admitted) -> RawReply:
        """Step 5: a malformed fault's body, or the completion (counted as served)."""
        completion_id = f"chatcmpl-mock{admitted.ordinal:06d}"
        created = int(time.time())
        model = self.config.model
        rule = admitted.rule
        if rule is not None and rule.kind == "malformed":
            return _with_headers(malformed_reply(rule.variant, completion_id, model, created), admitted.limit_headers)
        reply, prompt, completion = admitted.reply, admitted.prompt, admitted.completion
        result = completion_body(completion_id, model, created, reply, prompt, completion)
        stats = self.stats
        stats.served += 1
        stats.prompt_tokens += prompt
        stats.completion_tokens += completion
        stats.tool_calls += len(reply.tool_calls)
        # As aiohttp's json_response wrote it: json.dumps' default separators, text in UTF-8.
        return RawReply(200, json.dumps(result).encode(), charset="utf-8", headers=admitted.limit_headers)


def _with_headers(reply: RawReply, headers: dict[str, str]) -> RawReply:
    """The reply with ``headers`` after its own (a later one of the same name wins)."""
    if not headers:
        return reply
    return RawReply(reply.status, reply.body, reply.content_type, reply.charset, reply.headers | headers)
