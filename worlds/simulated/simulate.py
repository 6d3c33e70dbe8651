"""Asks a model for one operation's response, and accepts only an answer that parses and fits the schema.

A StableToolBench-style server gives up after three unparseable answers and hands the agent a fixed message. Here
an answer must be ``{"status": CODE, "body": ...}`` whose success body validates against the operation's response
schema; a bad answer is sent back with what is wrong (at most ``ATTEMPTS`` tries), and if every try fails the call
is a ``world:simulation_failed`` result: the world's failure, which judges exclude, never the agent's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from sim.core import LLMHandle, ModelRequest, ToolStatus
from worlds.simulated.cache import CachedResponse
from worlds.simulated.operations import ApiOperation
from worlds.simulated.prompt import messages, retry_messages

ATTEMPTS = 3
MAX_TOKENS = 1_024
_SCHEMA_ERRORS = 3


@dataclass(frozen=True)
class Answer:
    """An HTTP status and a JSON body, as the simulated service gave it."""

    status: int
    body: Any

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "body": self.body}

    @classmethod
    def from_json(cls, value: Any) -> Answer:
        if isinstance(value, dict) and isinstance(value.get("status"), int) and "body" in value:
            return cls(value["status"], value["body"])
        return cls(200, value)  # a cache written by hand may hold the bare body of a success


class SimulationFailed(Exception):
    """No usable answer: every attempt was refused, or (``transient``) the model could not be reached."""

    def __init__(self, message: str, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


_HTTP_STATUS: dict[int, ToolStatus] = {
    400: "invalid_arguments", 422: "invalid_arguments", 401: "unauthorized", 403: "unauthorized",
    404: "not_found", 410: "not_found", 429: "rate_limited", 408: "timeout",
}  # fmt: skip


def tool_status(http: int) -> ToolStatus:
    """The squall outcome of an HTTP status the simulated service answered."""
    if 200 <= http < 300:
        return "success"
    return _HTTP_STATUS.get(http, "failed")


class ResponseChecker:
    """Parses a model's answer and checks it against one operation's response schema (its validator built on first
    use: a world of hundreds of operations loads without copying every schema, most never simulated in a run)."""

    def __init__(self, schema: Mapping[str, Any] | None) -> None:
        self._schema = schema
        self._built: Draft202012Validator | None = None

    @property
    def _validator(self) -> Draft202012Validator | None:
        if self._built is None and self._schema is not None:
            self._built = Draft202012Validator(_plain(self._schema))
        return self._built

    def check(self, text: str) -> Answer | str:
        """The answer, or what is wrong with it (said so the model can fix it)."""
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end < start:
            return "it is not a JSON object."
        try:
            value = json.loads(text[start : end + 1])
        except json.JSONDecodeError as error:
            return f"it is not valid JSON ({error.msg} at character {error.pos})."
        if not isinstance(value, dict) or not isinstance(value.get("status"), int) or "body" not in value:
            return 'it must be an object with an integer "status" and a "body".'
        answer = Answer(value["status"], value["body"])
        if not 200 <= answer.status < 500:
            return f"status {answer.status} is not allowed: answer 2xx or 4xx."
        if answer.status < 300 and self._validator is not None:
            try:
                errors = sorted(self._validator.iter_errors(answer.body), key=lambda e: list(e.absolute_path))
            except SchemaError:  # a spec schema jsonschema cannot read: accept what parses
                return answer
            if errors:
                where = [f"at '{'/'.join(map(str, e.absolute_path)) or '(body)'}': {e.message}" for e in errors]
                return "the body does not match the response schema: " + "; ".join(where[:_SCHEMA_ERRORS])
        return answer


async def simulate(
    llm: LLMHandle,
    model: str,
    title: str,
    operation: ApiOperation,
    arguments: Mapping[str, Any],
    cached: Sequence[CachedResponse],
    memory: Sequence[tuple[str, Any, Any]],
    checker: ResponseChecker,
    seed: int,
) -> Answer:
    """The model's checked answer. Raises SimulationFailed naming the last problem."""
    conversation = messages(title, operation, arguments, cached, memory)
    problem = ""
    for _ in range(ATTEMPTS):
        request = ModelRequest(
            role="world", model=model, messages=tuple(conversation), max_tokens=MAX_TOKENS, temperature=0.0, seed=seed
        )
        try:
            response = await llm.complete(request)
        except Exception as error:  # the gateway gave up (provider down, model unusable): the world's failure
            why = f"the simulator model failed: {type(error).__name__}: {error}"
            raise SimulationFailed(why, transient=True) from error
        checked = checker.check(response.text)
        if isinstance(checked, Answer):
            return checked
        problem = checked
        conversation = retry_messages(conversation, response.text, problem)
    raise SimulationFailed(f"no valid answer in {ATTEMPTS} attempts; last: {problem}")


def _plain(value: Any) -> Any:
    """Frozen schema containers as plain dicts and lists (jsonschema walks them by type)."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
