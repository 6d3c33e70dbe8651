"""Tools declared once: the spec the agent reads, the function that runs, its domain and its prerequisites.

A tool is a function marked with ``lookup`` (read-only) or ``action`` (changes state)::

    @action("Set a light's brightness.", device_id=string("Device id."), level=integer("Percent.", 0, 100),
            requires=("find_devices", "set_power"))
    def set_brightness(state, device_id, level): ...

The mark is an immutable ``ToolDef`` kept on the function itself, so importing a module registers nothing
anywhere; ``ToolBook.collect(domain, modules)`` builds a domain's book from the marked functions of the
modules its world lists, module by module and each in source order.

``requires`` is the tool dependency graph as data: the tools whose success must come first (found before
adjusted, powered on before dimmed). The functions enforce it against the state; the graph says it to
people, to ``squall worlds show`` and to the conversation composer, which walks it to build gold chains.
A ``Toolkit`` joins books into one world's tools and runs calls: unknown tool, bad arguments and refusals
all become failed ``ToolResult``s, never exceptions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from inspect import isfunction
from types import ModuleType
from typing import Any, TypeVar

from sim.core import ToolCall, ToolResult, ToolSpec, failure
from worlds.common.arguments import ArgumentChecker
from worlds.common.errors import ToolError

Schema = dict[str, Any]
ToolFunction = Callable[..., dict[str, Any]]
Function = TypeVar("Function", bound=ToolFunction)


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


@dataclass(frozen=True)
class ToolDef:
    """A tool as its function declares it; the domain is the book's, given when the book is collected."""

    spec: ToolSpec
    requires: tuple[str, ...] = ()


_MARK = "__tool_def__"


def lookup(description: str, /, requires: Sequence[str] = (), **params: Schema) -> Callable[[Function], Function]:
    """Mark a read-only tool. ``description`` is positional-only, so a tool may have a parameter of that name."""
    return _marker(description, True, requires, params)


def action(description: str, /, requires: Sequence[str] = (), **params: Schema) -> Callable[[Function], Function]:
    """Mark a tool that changes state (``description`` positional-only, as ``lookup``'s)."""
    return _marker(description, False, requires, params)


def _marker(
    description: str, read_only: bool, requires: Sequence[str], params: Mapping[str, Schema]
) -> Callable[[Function], Function]:
    def mark(function: Function) -> Function:
        spec = ToolSpec(
            name=function.__name__, description=description, parameters=_parameters(params), read_only=read_only
        )
        # On the function, not in a registry: the only state is the function's own, set once as it is defined.
        setattr(function, _MARK, ToolDef(spec=spec, requires=tuple(requires)))
        return function

    return mark


def tool_def(function: object) -> ToolDef | None:
    """The mark ``lookup`` or ``action`` left on a function, or None."""
    found = getattr(function, _MARK, None)
    return found if isinstance(found, ToolDef) else None


@dataclass(frozen=True)
class ToolBook:
    """One domain's tools, in declaration order."""

    domain: str
    tools: tuple[Tool, ...]

    @classmethod
    def collect(cls, domain: str, modules: Iterable[ModuleType]) -> ToolBook:
        """A fresh book of the tools the modules define (not those they import), module by module in the
        order given, each module's in source order. Raises ValueError for a module that defines none."""
        tools: list[Tool] = []
        for module in modules:
            marked = [
                (value, found)
                for value in vars(module).values()
                if isfunction(value) and value.__module__ == module.__name__ and (found := tool_def(value)) is not None
            ]
            if not marked:
                raise ValueError(f"module {module.__name__} defines no tools for the {domain} book")
            marked.sort(key=lambda pair: pair[0].__code__.co_firstlineno)
            tools += [Tool(spec=d.spec, function=f, domain=domain, requires=d.requires) for f, d in marked]
        return cls(domain=domain, tools=tuple(tools))


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
