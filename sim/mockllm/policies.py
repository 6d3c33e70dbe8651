"""Deterministic answer policies: a pure function of the request's messages and tools."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from sim.mockllm.config import EchoPolicy, FirstToolPolicy, PolicyConfig, ScriptPolicy, Step

Message = dict[str, Any]


@dataclass(frozen=True)
class WireToolCall:
    """A tool call as it goes on the wire; `arguments` is already a JSON (or deliberately broken) string."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Reply:
    """What the model says: text, tool calls, or both."""

    text: str | None
    tool_calls: list[WireToolCall] = field(default_factory=list)


class Policy(Protocol):
    def respond(self, messages: list[Message], tools: list[dict[str, Any]]) -> Reply: ...


def message_text(message: Message) -> str:
    """The text of a message whose content is a string, None, or a list of content parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def _first_user_text(messages: list[Message]) -> str:
    return next((message_text(m) for m in messages if m.get("role") == "user"), "")


def _last_user_text(messages: list[Message]) -> str:
    return next((message_text(m) for m in reversed(messages) if m.get("role") == "user"), "")


def _tool_calls_so_far(messages: list[Message]) -> int:
    return sum(len(m.get("tool_calls") or []) for m in messages if m.get("role") == "assistant")


def _new_call_id(messages: list[Message], index: int) -> str:
    # Numbered after the calls already in the conversation: unique per conversation and reproducible.
    return f"call_{_tool_calls_so_far(messages) + index + 1}"


class ScriptRunner:
    """Answers with the script step at the conversation's position (its count of assistant messages)."""

    def __init__(self, config: ScriptPolicy) -> None:
        self._config = config

    def script_for(self, messages: list[Message]) -> list[Step]:
        first_user = _first_user_text(messages)
        for key, steps in self._config.by_user.items():
            if key in first_user:
                return steps
        return self._config.steps

    def respond(self, messages: list[Message], tools: list[dict[str, Any]]) -> Reply:
        steps = self.script_for(messages)
        position = sum(1 for m in messages if m.get("role") == "assistant")
        if position >= len(steps):
            if self._config.after_end is not None:
                return Reply(text=self._config.after_end)
            position = len(steps) - 1
        step = steps[position]
        calls = [
            WireToolCall(
                id=_new_call_id(messages, i),
                name=c.name,
                arguments=c.arguments if isinstance(c.arguments, str) else json.dumps(c.arguments),
            )
            for i, c in enumerate(step.tool_calls or [])
        ]
        return Reply(text=step.text, tool_calls=calls)


class EchoRunner:
    """Echoes the last user message."""

    def __init__(self, config: EchoPolicy) -> None:
        self._config = config

    def respond(self, messages: list[Message], tools: list[dict[str, Any]]) -> Reply:
        return Reply(text=self._config.prefix + _last_user_text(messages))


def example_value(schema: Any) -> Any:
    """A simple value satisfying a JSON schema: enums their first value, strings "x", numbers 1, booleans true."""
    if not isinstance(schema, dict):
        return "x"
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for union in ("anyOf", "oneOf"):
        if schema.get(union):
            options = [s for s in schema[union] if not (isinstance(s, dict) and s.get("type") == "null")]
            return example_value((options or schema[union])[0])
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties") or {}
        return {name: example_value(props.get(name, {})) for name in schema.get("required") or []}
    simple: dict[str, Any] = {"string": "x", "integer": 1, "number": 1, "boolean": True, "array": [], "null": None}
    return simple.get(kind, "x")


class FirstToolRunner:
    """Calls the first offered tool, then answers done_text after the tool result."""

    def __init__(self, config: FirstToolPolicy) -> None:
        self._config = config
        # The last tool list seen and its call (name, arguments): the server hands every request sending the same
        # list the same parsed object (request_body.BodyParser), and requests are read-only.
        self._last: tuple[list[dict[str, Any]], tuple[str, str] | None] | None = None

    def _first_call(self, tools: list[dict[str, Any]]) -> tuple[str, str] | None:
        last = self._last
        if last is not None and last[0] is tools:
            return last[1]
        functions = [t["function"] for t in tools if isinstance(t, dict) and isinstance(t.get("function"), dict)]
        call: tuple[str, str] | None = None
        if functions:
            fn = functions[0]
            args = example_value(fn.get("parameters") or {"type": "object"})
            call = (str(fn.get("name", "")), json.dumps(args))
        self._last = (tools, call)
        return call

    def respond(self, messages: list[Message], tools: list[dict[str, Any]]) -> Reply:
        last_role = messages[-1].get("role") if messages else None
        first = self._first_call(tools) if last_role != "tool" else None
        if first is None:
            return Reply(text=self._config.done_text)
        name, arguments = first
        return Reply(text=None, tool_calls=[WireToolCall(id=_new_call_id(messages, 0), name=name, arguments=arguments)])


def build_policy(config: PolicyConfig) -> Policy:
    """The runner for a policy config."""
    if isinstance(config, ScriptPolicy):
        return ScriptRunner(config)
    if isinstance(config, EchoPolicy):
        return EchoRunner(config)
    return FirstToolRunner(config)
