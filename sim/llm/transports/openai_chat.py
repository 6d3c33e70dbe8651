"""A lean OpenAI Chat Completions client: the hot path for every OpenAI-compatible endpoint.

Why not the openai SDK + pydantic-ai's agent graph: measured at 400 episodes in flight they cost
~25-31 ms of CPU per request (graph, request transforms, a 128-connection pool); a bare HTTP/1.1 POST
(``http1``) with hand-built JSON costs a small fraction of a millisecond. This client builds the body directly
from the request value (the tools' JSON is serialised once per toolset, each message once per history), keeps a
keep-alive connection for every request in flight, and classifies every failure for the gateway. It never retries
(the pool resends only a request that a stale keep-alive connection dropped unanswered).
"""

from __future__ import annotations

import json
import weakref
from typing import Any

from sim.core import ChatMessage, ModelRequest, ModelResponse, ToolSpec
from sim.llm.endpoints import OPENAI_BASE_URL, EndpointSettings, default_api_key
from sim.llm.transports.base import Reply, TransportError
from sim.llm.transports.http1 import Http1Pool, HttpConnectionError, HttpConnectTimeout, HttpTimeout, Target
from sim.llm.transports.openai_errors import INTERRUPTED_FINISH, http_error, limit_headers
from sim.llm.transports.openai_reply import read_reply

_TOOLS_CACHE_SIZE = 4096
_TAILS_CACHE_SIZE = 4096
_string = json.encoder.encode_basestring
"""A str as JSON, non-ASCII kept: what ``json.dumps(..., ensure_ascii=False)`` does with a str (the C function)."""
_arguments = json.JSONEncoder(ensure_ascii=False).encode
"""``json.dumps(value, ensure_ascii=False)`` without building an encoder per call."""
_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
CONNECT_BASE_S, CONNECT_PER_REQUEST_S = 10.0, 0.01


def api_key_for(base_url: str | None) -> str:
    """SQUALL_API_KEY or OPENAI_API_KEY; a local endpoint without either gets a placeholder."""
    return default_api_key(base_url)


class OpenAIChatTransport:
    """Sends Chat Completions requests for one model at one base URL over the run's shared connection pool."""

    def __init__(
        self,
        session: Http1Pool,
        base_url: str | None,
        model_name: str,
        timeout_s: float,
        *,
        connect_timeout_s: float | None = None,
        settings: EndpointSettings | None = None,
    ) -> None:
        self._session = session
        self._url = (base_url or OPENAI_BASE_URL).rstrip("/") + "/chat/completions"
        self._target = Target.of(self._url)
        self._model_name = model_name
        self._settings = settings
        self._priced = base_url is None  # OpenAI's own prices are known; a configured endpoint's are its own
        key = (settings.api_key() if settings else None) or api_key_for(base_url)
        headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        self._head = self._target.head({**headers, **(settings.headers if settings else {})})
        self._sampling = settings.sampling if settings else "standard"
        self._endpoint_cap = settings.max_output_tokens if settings else None
        """The endpoint's ``max_output_tokens``: the cap of a request that sets none (None: no cap sent)."""
        self._total_s = timeout_s
        self._connect_s = connect_timeout_s
        """None: scaled with the requests in flight (``connect_timeout``)."""
        self._in_flight = 0
        # ids of the ToolSpecs -> (the specs, their JSON). Requests are rebuilt every step (pydantic copies the tuple)
        # but hold the same ToolSpec objects, shared by every episode of a world; the cache keeps them alive, so
        # their ids cannot be reused by other objects while cached.
        self._tools_json: dict[tuple[int, ...], tuple[tuple[ToolSpec, ...], bytes]] = {}
        # Each message's JSON by its id while the message lives (a weak reference drops the entry as it dies): an
        # agent's request at step k holds the same ChatMessage objects as at step k-1 plus the new ones, so a history
        # is encoded once, not once per step, and the cache holds no more than the episodes in flight do.
        self._messages_json: dict[int, tuple[weakref.ref[ChatMessage], bytes]] = {}
        # The sampling fields after the messages, by their values: the same few for every request of a run.
        self._tails: dict[tuple[object, ...], bytes] = {}
        self._opening = f'{{"model":{json.dumps(model_name, ensure_ascii=False)},"messages":['.encode()

    def connect_timeout(self, in_flight: int) -> float:
        """Seconds a new connection may take to open: as configured, else 10 s plus 10 ms per request in flight (a
        loaded machine opening thousands at once is slow to accept, not the provider slow to answer), never more
        than the request's whole timeout."""
        wanted = self._connect_s if self._connect_s is not None else CONNECT_BASE_S + CONNECT_PER_REQUEST_S * in_flight
        return min(self._total_s, wanted)

    async def send(self, request: ModelRequest) -> Reply:
        body = self._body(request)
        self._in_flight += 1
        connect = self.connect_timeout(self._in_flight)
        try:
            answer = await self._session.post(self._target, self._head, body, total_s=self._total_s, connect_s=connect)
        except HttpConnectTimeout as exc:
            detail = f"no connection within {connect}s (connect timeout, {self._in_flight} in flight)"
            raise TransportError("transient", "provider:connect_timeout", detail) from exc
        except HttpTimeout as exc:
            detail = f"no response within {self._total_s}s (total request timeout)"
            raise TransportError("transient", "provider:timeout", detail) from exc
        except HttpConnectionError as exc:
            raise TransportError("transient", "provider:connection", str(exc)[:300]) from exc
        finally:
            self._in_flight -= 1
        headers = limit_headers(answer.headers)
        if answer.status != 200:
            raise http_error(answer.status, answer.body, headers)
        return Reply(self._parse(answer.body, request), headers)

    async def aclose(self) -> None:
        return None  # the session belongs to the gateway

    def _body(self, request: ModelRequest) -> bytes:
        """The same bytes as ``json.dumps`` of the whole payload, spliced from each message's cached JSON."""
        has_tools = bool(request.tools)
        # Keyed so that values equal in Python but not in JSON (True and 1, 0.0 and -0.0) never share an entry.
        max_tokens, seed = request.max_tokens, request.seed
        tool_choice = request.tool_choice if has_tools else None
        key = (max_tokens, type(max_tokens), repr(request.temperature), seed, type(seed), request.stop, tool_choice)
        tail = self._tails.get(key)
        if tail is None:
            tail = self._tail(request)
            if len(self._tails) >= _TAILS_CACHE_SIZE:
                self._tails.clear()
            self._tails[key] = tail
        parts = [self._opening, b",".join(map(self._message_json, request.messages)), b"]", tail]
        if has_tools:
            parts += (b',"tools":', self._tools(request.tools))
        parts.append(b"}")
        return b"".join(parts)

    def output_limit(self, request: ModelRequest) -> int | None:
        """The output cap sent with ``request``: its own ``max_tokens`` (unless the endpoint takes no sampling
        parameter), else the endpoint's ``max_output_tokens``; None: none is sent, the provider's own limit holds."""
        if request.max_tokens is not None and self._sampling != "none":
            return request.max_tokens
        return self._endpoint_cap

    def _tail(self, request: ModelRequest) -> bytes:
        """The sampling fields, with their leading comma (b"" when none)."""
        payload: dict[str, Any] = {}
        cap = self.output_limit(request)
        if self._sampling == "reasoning":  # reasoning models reject temperature and max_tokens
            if cap is not None:
                payload["max_completion_tokens"] = cap
        else:
            if cap is not None:
                payload["max_tokens"] = cap  # not max_completion_tokens: local servers ignore it
            if self._sampling == "standard" and request.temperature is not None:
                payload["temperature"] = request.temperature
        if request.seed is not None:
            payload["seed"] = request.seed
        if request.stop:
            payload["stop"] = list(request.stop)
        if request.tools and request.tool_choice is not None:
            payload["tool_choice"] = request.tool_choice
        return b"," + _compact(payload)[1:-1].encode() if payload else b""

    def _message_json(self, message: ChatMessage) -> bytes:
        key = id(message)
        hit = self._messages_json.get(key)
        if hit is not None and hit[0]() is message:
            return hit[1]
        encoded = _message_bytes(message)
        cache = self._messages_json
        cache[key] = (weakref.ref(message, lambda _: cache.pop(key, None)), encoded)
        return encoded

    def _tools(self, tools: tuple[ToolSpec, ...]) -> bytes:
        key = tuple(map(id, tools))
        hit = self._tools_json.get(key)
        if hit is not None:
            return hit[1]
        if len(self._tools_json) >= _TOOLS_CACHE_SIZE:
            self._tools_json.clear()
        encoded = json.dumps([t.to_openai() for t in tools], ensure_ascii=False, separators=(",", ":")).encode()
        self._tools_json[key] = (tools, encoded)
        return encoded

    def _parse(self, raw: bytes, request: ModelRequest) -> ModelResponse:
        try:
            response = read_reply(raw, request, self.output_limit(request), self._cost)
        except (ValueError, KeyError, IndexError, TypeError, AttributeError, OverflowError) as exc:
            # OverflowError: a token count of 1e400 or Infinity (int() of an infinite float)
            raise TransportError(
                "malformed", "provider:malformed_response", f"unparseable body: {raw[:200]!r}"
            ) from exc
        if response.finish_reason in INTERRUPTED_FINISH:
            detail = f"generation broken off by the provider: finish_reason {response.finish_reason!r}"
            raise TransportError("transient", "provider:interrupted", detail)
        return response

    def _cost(self, input_tokens: int, output_tokens: int, cached_input_tokens: int = 0) -> float:
        settings = self._settings
        priced = settings.cost(input_tokens, output_tokens, cached_input_tokens) if settings is not None else None
        if priced is not None:
            return priced
        if not self._priced:
            return 0.0
        try:
            from genai_prices import Usage, calc_price

            usage = Usage(input_tokens=input_tokens, output_tokens=output_tokens, cache_read_tokens=cached_input_tokens)
            return float(calc_price(usage, model_ref=self._model_name, provider_id="openai").total_price)
        except Exception:  # an unpriced model name: unknown cost, not a failed request
            return 0.0


def _message(m: ChatMessage) -> dict[str, Any]:
    """A message as the API's JSON object (``_message_bytes`` writes the same without building it)."""
    out: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.tool_calls:
        # content "" rather than null alongside tool_calls: some servers (llama-cpp-python's) answer 500 to null.
        out["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)},
            }
            for c in m.tool_calls
        ]
    if m.role == "tool":
        out["tool_call_id"] = m.tool_call_id
        if m.name:
            out["name"] = m.name
    return out


def _message_bytes(m: ChatMessage) -> bytes:
    """``json.dumps(_message(m), ensure_ascii=False, separators=(",", ":")).encode()``, written directly: the
    same bytes (each str through the encoder's own string function) for a fraction of the CPU."""
    parts = ['{"role":', _string(m.role), ',"content":', _string(m.content)]
    if m.tool_calls:
        parts.append(',"tool_calls":[')
        parts.append(
            ",".join(
                f'{{"id":{_string(c.id)},"type":"function","function":{{"name":{_string(c.name)},'
                f'"arguments":{_string(_arguments(c.arguments))}}}}}'
                for c in m.tool_calls
            )
        )
        parts.append("]")
    if m.role == "tool":
        parts += (',"tool_call_id":', "null" if m.tool_call_id is None else _string(m.tool_call_id))
        if m.name:
            parts += (',"name":', _string(m.name))
    parts.append("}")
    return "".join(parts).encode()


def new_session() -> Http1Pool:
    """One pool per run: a keep-alive connection for every request in flight (a capped pool makes requests queue
    for a socket and reconnect constantly at high concurrency)."""
    return Http1Pool()
