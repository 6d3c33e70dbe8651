"""Before the run folder is made: does each OpenAI-compatible endpoint the run will call answer, serve the model,
and (for an agent calling tools natively) accept a request with tools?

Two requests at most per endpoint (``GET /models``, one tiny chat completion with one tool), with a short timeout,
so an endpoint with nothing listening fails at once, with one line naming its URL, instead of a run of
``provider_error`` episodes. ``squall run`` calls it right after reading its config, before the world loads; it uses
the standard library's HTTP client only, so no heavy import delays the answer. Skipped with ``--no-preflight`` and
when a response cache is on (a cached re-run may need no endpoint). Models of other providers (pydantic-ai's
``anthropic:...``) and the embedded ``local`` model (started by squall) are not checked. An agent outside
squall is checked whatever the cache (its answers are never cached): an ``http:`` or ``command:`` agent must answer
the protocol's hello (``sim.agents.outside.handshake``); a ``python:`` callable must import and be async.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sim.config.run_config import ConfigError, RunConfig
from sim.llm.endpoints import OPENAI_BASE_URL, EndpointSettings, default_api_key, find_endpoint
from sim.llm.model_spec import parse_model_spec

MODELS_TIMEOUT_S = 4.0
"""GET /models: nothing listening is refused at once; a host that drops packets is given up on after this."""
PROBE_TIMEOUT_S = 60.0
"""The tool-calling probe, at most (a cold model may take a while to answer its first request)."""
PROBE_TOOL = {
    "type": "function",
    "function": {
        "name": "ping",
        "description": "Answer a ping.",
        "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    },
}
_NOT_MODELS = ("oracle", "null", "naive", "obedient", "local")
_OUTSIDE = ("http:", "https:", "python:", "command:")


@dataclass(frozen=True)
class Target:
    """One model the run will call at an OpenAI-compatible endpoint."""

    field: str  # the config field that names it (agent, user_model), for the error message
    model: str
    base_url: str
    settings: EndpointSettings | None
    tools: bool  # send the tool-calling probe
    assumed: bool = False  # the model string names no endpoint: OpenAI's URL is assumed, and said so


def _agent_model(agent: str) -> tuple[str | None, bool]:
    """(the agent's model string, whether it calls tools natively); None for agents without a model."""
    agent = agent.strip()
    if agent in _NOT_MODELS or agent.startswith(_OUTSIDE):
        return None, False
    head, sep, rest = agent.partition(":")
    if sep and head in ("text", "native", "direct", "code"):
        return (None if rest in _NOT_MODELS else rest), head == "native"
    return agent, True


def targets(config: RunConfig) -> list[Target]:
    """The models to check: the agent's (a native agent's with the tool probe) and an llm user's."""
    wanted: list[tuple[str, str, bool]] = []
    model, tools = _agent_model(config.agent)
    if model is not None:
        wanted.append(("agent", model, tools))
    if "llm" in config.user and config.user_model not in _NOT_MODELS:
        wanted.append(("user_model", config.user_model, False))
    out: list[Target] = []
    for field, raw, probe in wanted:
        try:
            spec = parse_model_spec(raw)
        except ValueError:
            continue  # the run's own checks name a malformed model string
        settings = find_endpoint(config.endpoints, spec.endpoint_name, spec.base_url)
        if spec.endpoint_name is not None and settings is None:
            known = ", ".join(sorted(config.endpoints)) or "none is configured"
            raise config.problem(field, f"no endpoint named {spec.endpoint_name!r} ([endpoints.NAME]: {known})")
        if settings is None and spec.base_url is None and not spec.raw.startswith("openai-chat:"):
            continue  # another provider, reached through pydantic-ai
        base_url = settings.base_url if settings else spec.base_url or OPENAI_BASE_URL
        assumed = settings is None and spec.base_url is None
        out.append(Target(field, spec.name, base_url, settings, probe, assumed))
    return out


def preflight(config: RunConfig) -> list[str]:
    """Check every target; returns a line per endpoint checked. Raises ConfigError (exit 2) naming the URL."""
    if not config.preflight:
        return []
    notes = _outside_agent(config)  # never cached: checked whatever the cache
    if config.cache != "off":
        return notes  # a cached re-run may need no model endpoint; an outside agent is never cached
    return notes + [_check(config, target) for target in targets(config)]


def _outside_agent(config: RunConfig) -> list[str]:
    """The outside agent's line, when the run's agent is one: an ``http:`` or ``command:`` agent must answer the
    protocol's hello (a ``python:`` one was checked when its spec was read: it imports, it is async)."""
    from sim.agents.outside.handshake import HandshakeFailed, handshake  # aiohttp behind it: only for such agents
    from sim.agents.outside.spec import split_outside

    try:
        outside = split_outside(config.agent)
    except ValueError as exc:
        raise config.problem("agent", str(exc)) from exc
    if outside is None:
        return []
    kind, target = outside
    try:
        note = handshake(kind, target)
    except HandshakeFailed as exc:
        raise config.problem("agent", f"preflight: {exc} (--no-preflight skips this check)") from exc
    return [note or f"preflight: python:{target} imports"]


def _check(config: RunConfig, target: Target) -> str:
    where = target.base_url
    place = where + (
        f" (assumed: the model string names no @URL; openai-chat:{target.model}@BASE_URL names another server)"
        if target.assumed
        else ""
    )

    def problem(message: str) -> ConfigError:
        return config.problem(target.field, f"preflight: {place}: {message} (--no-preflight skips this check)")

    try:
        key = (target.settings.api_key() if target.settings else None) or default_api_key(target.base_url)
    except ValueError as exc:
        raise config.problem(target.field, str(exc)) from exc
    headers = {"Authorization": f"Bearer {key}", **(target.settings.headers if target.settings else {})}
    status, body = _request(f"{where}/models", headers, None, MODELS_TIMEOUT_S, problem)
    if status in (401, 403):
        raise problem(f"the key was refused (HTTP {status}: {_error_text(body)})")
    served = _model_ids(body) if status == 200 else None
    note = f"preflight: {place} answers"
    if served:
        if target.model not in served:
            shown = ", ".join(sorted(served)[:10]) + (" ..." if len(served) > 10 else "")
            raise problem(f"model {target.model!r} is not served there (GET /models lists: {shown})")
        note += f"; model {target.model} is listed"
    if target.tools:
        timeout = min(config.request_timeout_s, PROBE_TIMEOUT_S)
        status, body = _request(f"{where}/chat/completions", headers, _probe(target), timeout, problem)
        if status == 429 or status >= 500 or status in (408, 409):
            note += f"; a request with tools got HTTP {status} (transient: left to the run's retries)"
        elif status != 200:
            raise problem(f"a request with tools was refused (HTTP {status}: {_error_text(body)})")
        else:
            note += "; a request with tools was accepted"
    return note


def _request(
    url: str,
    headers: dict[str, str],
    payload: dict[str, Any] | None,
    timeout: float,
    problem: Callable[[str], ConfigError],
    method: str | None = None,
) -> tuple[int, bytes]:
    """(HTTP status, body). Not connecting is the caller's ``problem``; a slow answer to the probe is a 408."""
    data = None if payload is None else json.dumps(payload).encode()
    request = urllib.request.Request(url, data, {**headers, "Content-Type": "application/json"}, method=method)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # as the run's client: no proxy from env
    try:
        with opener.open(request, timeout=timeout) as resp:
            return int(resp.status), resp.read(1 << 20)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(1 << 16)
    except TimeoutError as exc:
        if payload is not None:  # connected, then slow: a busy server is not a down one
            return 408, b""
        raise problem(f"no answer within {timeout:g} s") from exc
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise problem(f"endpoint does not answer ({getattr(reason, 'strerror', None) or reason})") from exc


def _probe(target: Target) -> dict[str, Any]:
    """The tiniest request that exercises tool calling, with the sampling parameters the endpoint takes."""
    payload: dict[str, Any] = {
        "model": target.model,
        "messages": [{"role": "user", "content": "Call the ping tool with text 'hi'."}],
        "tools": [PROBE_TOOL],
    }
    sampling = target.settings.sampling if target.settings else "standard"
    if sampling == "reasoning":
        payload["max_completion_tokens"] = 64
    elif sampling == "standard":
        payload["max_tokens"] = 64
    return payload


def _model_ids(body: bytes) -> set[str] | None:
    try:
        data = json.loads(body).get("data")
        return {str(m["id"]) for m in data if isinstance(m, dict) and "id" in m} if isinstance(data, list) else None
    except (ValueError, AttributeError, TypeError):
        return None


def _error_text(body: bytes) -> str:
    try:
        error = json.loads(body).get("error")
        text = error.get("message") if isinstance(error, dict) else error
    except (ValueError, AttributeError):
        text = None
    return " ".join(str(text or body[:200].decode("utf-8", "replace")).split())[:200]
