"""Tools declared once: the spec the agent reads, the function that runs, its domain and its prerequisites.

A ``ToolBook`` collects a domain's tools from decorated functions::

    book = ToolBook("home")

    @book.action("Set a light's brightness.", device_id=string("Device id."), level=integer("Percent.", 0, 100),
                 requires=("find_devices", "set_power"))
    def set_brightness(state, device_id, level): ...

``requires`` is the tool dependency graph as data: the tools whose success must come first (found before
adjusted, powered on before dimmed). The functions enforce it against the state; the graph says it to
people, to ``squall worlds show`` and to the conversation composer, which walks it to build gold chains.
A ``Toolkit`` joins books into one world's tools and runs calls: unknown tool, bad arguments and refusals
all become failed ``ToolResult``s, never exceptions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sim.core import ToolCall, ToolResult, ToolSpec, failure
from worlds.common.arguments import ArgumentChecker
from worlds.common.errors import ToolError

Schema = dict[str, Any]
ToolFunction = Callable[..., dict[str, Any]]


def string(description: str, enum: Sequence[str] | None = None, pattern: str | None = None) -> Schema:
    schema: Schema = {"type": "string", "description": description}
    if enum is not None:
        schema["enum"] = list(enum)
    if pattern is not None:
        schema["pattern"] = pattern
    return schema


def integer(description: str, minimum: int | None = None, maximum: int | None = None) -> Schema:
    schema: Schema = {"type": "integer", "description": description}
    if minimum is not None:
        schema["minimum"] = minimum
    if maximum is not None:
        schema["maximum"] = maximum
    return schema


def number(description: str, minimum: float | None = None, maximum: float | None = None) -> Schema:
    schema: Schema = {"type": "number", "description": description}
    if minimum is not None:
        schema["minimum"] = minimum
    if maximum is not None:
        schema["maximum"] = maximum
    return schema


def boolean(description: str) -> Schema:
    return {"type": "boolean", "description": description}


def array(description: str, items: Schema, min_items: int = 0) -> Schema:
    return {"type": "array", "description": description, "items": items, "minItems": min_items}


def optional(schema: Schema) -> Schema:
    """Marks a parameter as not required (the marker is stripped from the published schema)."""
    return {**schema, "x-optional": True}


@dataclass(frozen=True)
class Tool:
    spec: ToolSpec
    function: ToolFunction = field(repr=False)
    domain: str
    requires: tuple[str, ...] = ()
    """Tools whose success must come before this one (an edge of the dependency graph)."""


def _parameters(properties: Mapping[str, Schema]) -> Schema:
    """An object schema that rejects unknown keys: a misspelt argument is an error, not a silent no-op."""
    published = {name: {k: v for k, v in s.items() if k != "x-optional"} for name, s in properties.items()}
    return {
        "type": "object",
        "properties": published,
        "required": [name for name, s in properties.items() if not s.get("x-optional")],
        "additionalProperties": False,
    }


class ToolBook:
    """One domain's tools, in declaration order."""

    def __init__(self, domain: str) -> None:
        self.domain = domain
        self.tools: list[Tool] = []

    def lookup(
        self, description: str, requires: Sequence[str] = (), **params: Schema
    ) -> Callable[[ToolFunction], ToolFunction]:
        """Declare a read-only tool."""
        return self._add(description, True, requires, params)

    def action(
        self, description: str, requires: Sequence[str] = (), **params: Schema
    ) -> Callable[[ToolFunction], ToolFunction]:
        """Declare a tool that changes state."""
        return self._add(description, False, requires, params)

    def _add(
        self, description: str, read_only: bool, requires: Sequence[str], params: Mapping[str, Schema]
    ) -> Callable[[ToolFunction], ToolFunction]:
        def register(function: ToolFunction) -> ToolFunction:
            spec = ToolSpec(
                name=function.__name__, description=description, parameters=_parameters(params), read_only=read_only
            )
            self.tools.append(Tool(spec=spec, function=function, domain=self.domain, requires=tuple(requires)))
            return function

        return register


class Toolkit:
    """Every tool of one world; built once per pack, shared (read-only) by its episodes."""

    def __init__(self, books: Iterable[ToolBook]) -> None:
        self.tools: dict[str, Tool] = {}
        for book in books:
            for tool in book.tools:
                if tool.spec.name in self.tools:
                    raise ValueError(f"tool {tool.spec.name} is declared by {book.domain} and another domain")
                self.tools[tool.spec.name] = tool
        for tool in self.tools.values():
            unknown = [r for r in tool.requires if r not in self.tools]
            if unknown:
                raise ValueError(f"tool {tool.spec.name} requires unknown tool(s): {', '.join(unknown)}")
        self.specs: tuple[ToolSpec, ...] = tuple(t.spec for t in self.tools.values())
        self.checkers = {name: ArgumentChecker(t.spec.parameters) for name, t in self.tools.items()}

    def domains(self) -> list[str]:
        return list(dict.fromkeys(t.domain for t in self.tools.values()))

    def graph(self) -> dict[str, list[str]]:
        """Tool -> the tools it requires (only tools with prerequisites)."""
        return {name: list(t.requires) for name, t in self.tools.items() if t.requires}

    def run(self, state: Any, call: ToolCall) -> ToolResult:
        tool = self.tools.get(call.name)
        if tool is None:
            return failure(call, "not_found", "unknown_tool", f"No tool named '{call.name}'. Check the tool list.")
        problem = self.checkers[call.name].problems(call.arguments)
        if problem is not None:
            return failure(call, "invalid_arguments", problem[0], problem[1])
        try:
            content = tool.function(state, **self.checkers[call.name].normalised(call.arguments))
        except ToolError as error:
            return failure(call, error.status, error.code, error.message)
        return ToolResult(call_id=call.id, status="success", content=content)
