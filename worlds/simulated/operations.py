"""What an imported API is: its operations, as the importers write them and the simulated world reads them.

A world folder of ``kind = "simulated"`` holds::

    world.toml        kind = "simulated", name, source ("openapi" | "toolbench"), operations, tasks, cache
    operations.json   an ``ApiSpec`` (this module), written by ``squall import openapi|toolbench``; the schemas
                      operations share are stored once (``schemas``: ``worlds.simulated.shared_schemas``)
    tasks.jsonl       one Task per line (ToolBench queries, or the user's own), gold calls name operations
    cache/            simulated responses, one file per operation (a folder a team can commit or share)

The importers (OpenAPI 3.0/3.1, ToolBench tool files) and the simulator agree on nothing else: an operation is
a tool the agent calls with one flat argument object; ``locations`` says where each argument would travel in a
real HTTP request, so a drift stressor or a real client can rebuild the request, and the simulator can show the
model the request as the service would have received it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from sim.core.frozen import FrozenDict, freeze
from sim.core.tools import Frozen, ToolSpec
from worlds.simulated.shared_schemas import ref_graph, with_defs, without_defs

ParameterLocation = Literal["path", "query", "header", "cookie", "body"]
"""Where an argument travels in the real request (``body``: a top-level property of the JSON body)."""

HttpMethod = Literal["get", "put", "post", "delete", "options", "head", "patch", "trace"]

WRITE_METHODS: frozenset[str] = frozenset({"put", "post", "delete", "patch"})
"""Methods whose operations may change the service's state (the simulator's per-episode memory)."""


class ApiExample(Frozen):
    """One documented exchange: arguments and the response the service gave (from the spec or a template)."""

    arguments: dict[str, Any] = Field(default_factory=dict, description="Flat arguments, as the agent would pass.")
    response: Any = Field(description="The response body (JSON value).")
    source: str = Field(description="Where it came from: a JSON pointer into the spec, or 'template_response'.")

    @field_validator("arguments", mode="after")
    @classmethod
    def _freeze_arguments(cls, value: dict[str, Any]) -> FrozenDict:
        frozen: FrozenDict = freeze(value)
        return frozen


class ApiOperation(Frozen):
    """One operation of the service, which the agent sees as one tool."""

    name: str = Field(description="Tool name: operationId (sanitised to [A-Za-z0-9_-], ≤ 64 chars) or method_path.")
    method: HttpMethod = Field(description="HTTP method (lower case).")
    path: str = Field(description="Path template, e.g. /pets/{petId}; for ToolBench the API's url or name.")
    summary: str = Field(default="", description="One-line summary from the spec.")
    description: str = Field(default="", description="Documentation the agent reads (summary + description).")
    parameters: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}},
        description="JSON Schema (type object, $refs resolved) of the flat arguments: path, query, header and "
        "body parameters merged; ``required`` lists the required ones.",
    )
    locations: dict[str, ParameterLocation] = Field(
        default_factory=dict, description="Argument name -> where it travels. Every property has an entry."
    )
    response_schema: dict[str, Any] | None = Field(
        default=None,
        description="JSON Schema ($refs resolved) of the success response body; None when the spec gives none "
        "(then any JSON value is accepted).",
    )
    examples: tuple[ApiExample, ...] = Field(default=(), description="Documented exchanges, spec order.")
    writes: bool = Field(description="True when a call may change state (a write method, or the spec says so).")
    tags: tuple[str, ...] = Field(default=(), description="The spec's tags (ToolBench: the tool's category).")
    source: str = Field(description="Where it is defined: file and JSON pointer (openapi.yaml#/paths/~1pets/get).")

    @field_validator("parameters", "response_schema", mode="after")
    @classmethod
    def _freeze_schema(cls, value: dict[str, Any] | None) -> FrozenDict | None:
        if value is None:
            return None
        frozen: FrozenDict = freeze(value)
        return frozen

    def tool_spec(self) -> ToolSpec:
        """The tool the agent sees: name, documentation and argument schema; lookups are read-only."""
        return ToolSpec(
            name=self.name, description=self.description, parameters=self.parameters, read_only=not self.writes
        )


class ApiSpec(Frozen):
    """An imported service: every operation, in spec order, names unique."""

    name: str = Field(description="World name.")
    title: str = Field(default="", description="The service's title (info.title / the tool's name).")
    version: str = Field(default="", description="The service's version (info.version).")
    source: Literal["openapi", "toolbench"] = Field(description="Which importer wrote it.")
    operations: tuple[ApiOperation, ...] = Field(description="The operations, names unique.")
    schemas: dict[str, Any] = Field(
        default_factory=dict,
        description="Schemas the operations share (``worlds.simulated.shared_schemas``), each stored once; in "
        "memory every operation's schemas carry the ones they reach as their ``$defs``.",
    )

    @field_validator("schemas", mode="after")
    @classmethod
    def _freeze_schemas(cls, value: dict[str, Any]) -> FrozenDict:
        frozen: FrozenDict = freeze(value)
        return frozen

    @model_validator(mode="after")
    def _attach_shared(self) -> ApiSpec:
        """Each operation's schemas as a model reads them, self-contained: the shared schemas they reach attached
        (the same objects for every operation, so memory holds each once)."""
        if self.schemas:
            graph = ref_graph(self.schemas)
            memo: dict[frozenset[str], list[str]] = {}
            attached = tuple(_with_shared(operation, self.schemas, graph, memo) for operation in self.operations)
            object.__setattr__(self, "operations", attached)  # frozen: set once, while validating
        return self

    def stored(self) -> dict[str, Any]:
        """The JSON of operations.json: each shared schema once, the operations' schemas without their copies."""
        graph = ref_graph(self.schemas)
        operations = [_without_shared(operation, graph).model_dump(mode="json") for operation in self.operations]
        data = self.model_dump(mode="json", exclude={"operations", "schemas"})
        data["operations"] = operations
        if self.schemas:  # an API without shared schemas (ToolBench's) is written as before they existed
            data["schemas"] = self.schemas
        return data

    @field_validator("operations", mode="after")
    @classmethod
    def _unique_names(cls, value: tuple[ApiOperation, ...]) -> tuple[ApiOperation, ...]:
        seen: set[str] = set()
        for operation in value:
            if operation.name in seen:
                raise ValueError(f"operation name '{operation.name}' appears twice")
            seen.add(operation.name)
        return value

    def operation(self, name: str) -> ApiOperation | None:
        return next((operation for operation in self.operations if operation.name == name), None)


def _with_shared(
    operation: ApiOperation, schemas: dict[str, Any], graph: dict[str, set[str]], memo: dict[frozenset[str], list[str]]
) -> ApiOperation:
    parameters = freeze(with_defs(operation.parameters, schemas, graph, memo))
    response = operation.response_schema
    response = freeze(with_defs(response, schemas, graph, memo)) if response is not None else None
    return operation.model_copy(update={"parameters": parameters, "response_schema": response})


def _without_shared(operation: ApiOperation, graph: dict[str, set[str]]) -> ApiOperation:
    if not graph:
        return operation
    response = operation.response_schema
    update = {
        "parameters": without_defs(operation.parameters, graph),
        "response_schema": without_defs(response, graph) if response is not None else None,
    }
    return operation.model_copy(update=update)
