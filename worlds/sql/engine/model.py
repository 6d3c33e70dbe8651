"""Value types of SQL-derived worlds: the generated functions, the import options, the imported world and its report."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from sim.core import Task, ToolSpec
from sim.core.files import FILE_NAME
from sim.core.tools import Frozen
from worlds.sql.engine.execute import QUERY_TIME_LIMIT_S

JsonType = Literal["string", "integer", "number", "array"]

LIKE_ESCAPE = "\\"
"""The ESCAPE character of a contains-parameter's LIKE: the agent's text is text, not a pattern."""


def escape_like(text: str) -> str:
    """``text`` as a LIKE operand that matches itself only: ``%``, ``_`` and the escape character escaped."""
    return text.replace(LIKE_ESCAPE, LIKE_ESCAPE * 2).replace("%", LIKE_ESCAPE + "%").replace("_", LIKE_ESCAPE + "_")


class SqlParam(Frozen):
    """One argument of a generated function: a literal of the SQL, or the list/value an inner query produced."""

    slot: str = Field(description="Placeholder name in the function's SQL (`:p0`); never shown to the agent.")
    name: str = Field(description="Argument name the agent uses.")
    type: JsonType = Field(description="JSON type of the argument.")
    items: Literal["string", "integer", "number", "object", "any"] | None = Field(
        default=None, description="Item type when the argument is a list."
    )
    description: str = Field(description="What the argument is, for the agent.")
    column: str | None = Field(default=None, description="`table.column` the value is compared with, if known.")
    contains: bool = Field(
        default=False, description="A LIKE '%x%' literal: the agent passes x, the SQL adds the wildcards."
    )
    swappable: bool = Field(
        default=False, description="An equality with a column: augmentation may swap in another value of it."
    )


class SqlFunction(Frozen):
    """A parameterised read-only query exposed as a tool."""

    name: str = Field(description="Tool name.")
    db_id: str = Field(pattern=rf"^{FILE_NAME.pattern}$", description="Database the query runs on (its file's name).")
    sql: str = Field(description="SQLite SELECT with `:slot` placeholders only.")
    params: list[SqlParam] = Field(default_factory=list, description="Arguments in textual order.")
    summary: str = Field(description="Description text; `⟨slot⟩` marks where an argument's name goes.")
    ordered: bool = Field(default=False, description="The query orders its rows (ORDER BY at the top).")
    like_escape: bool = Field(
        default=False,
        description="Its contains-parameters' LIKE carries ESCAPE '\\\\' and their values are bound escaped "
        "(imports before this field bound them raw, with SQL to match).",
    )

    def spec(self) -> ToolSpec:
        properties: dict[str, Any] = {}
        for param in self.params:
            schema: dict[str, Any] = {"type": param.type, "description": param.description}
            if param.type == "array":
                schema["items"] = {} if param.items in (None, "any") else {"type": param.items}
            properties[param.name] = schema
        return ToolSpec(
            name=self.name,
            description=self.describe(),
            parameters={
                "type": "object",
                "properties": properties,
                "required": [p.name for p in self.params],
                "additionalProperties": False,
            },
            read_only=True,
        )

    def describe(self) -> str:
        text = self.summary
        for param in self.params:
            text = text.replace(f"⟨{param.slot}⟩", f"`{param.name}`")
        return text

    def bindings(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Agent arguments (by public name) as SQL bindings (by slot); lists become JSON text for json_each."""
        import json

        bound: dict[str, Any] = {}
        for param in self.params:
            value = arguments[param.name]
            if param.type == "array":
                value = json.dumps(list(value))
            elif param.contains:
                value = escape_like(str(value)) if self.like_escape else str(value)
            bound[param.slot] = value
        return bound


class Rejection(Frozen):
    """A question the import left out, and why."""

    index: int = Field(description="Position of the question in its file.")
    db_id: str
    question: str
    sql: str
    reason: str = Field(description="Short reason class, e.g. 'parse_error', 'whole_mismatch'.")
    detail: str = Field(default="", description="The specifics.")


class ImportReport(Frozen):
    """What an import kept and rejected."""

    source: str = Field(description="spider or bird.")
    questions: int
    kept: int
    rejected: int
    split: int = Field(description="Kept questions with two verified solution paths.")
    augmented: int = Field(default=0, description="Extra tasks made by swapping literal values.")
    functions: int
    toolkit_mean: float | None = Field(
        default=None, description="Mean functions one question offers (its own toolkit, else the world's functions)."
    )
    rejected_by_reason: dict[str, int] = Field(default_factory=dict)
    rejections: list[Rejection] = Field(default_factory=list)
    filters: dict[str, bool | int | None] = Field(
        default_factory=dict,
        description="The quality filters' settings (worlds.sql.ingest.quality); empty before them.",
    )
    filtered: dict[str, int] = Field(
        default_factory=dict, description="Questions each quality filter dropped (also in rejected_by_reason)."
    )


STYLES = ("per_question", "sel", "slot")
"""API styles of the generated tools (``worlds.sql.ingest.style_import``)."""

MAX_QUERY_TIME_LIMIT_S = 86_400.0


class ImportOptionError(ValueError):
    """An import option that is out of range or does not go with the others; ``field`` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.reason = message


@dataclass(frozen=True)
class ImportOptions:
    """How a question set becomes a world; checked when built (``ImportOptionError`` names the field)."""

    world: str = "sql"
    """The world's name."""
    db_ids: frozenset[str] | None = None
    """Only questions on these databases (None: all)."""
    augment: int = 0
    """Extra tasks per kept question, with literal values swapped for other values of the same column."""
    obfuscate: bool = False
    """Functions named function_<n>, arguments <greek>_<greek>; descriptions name no table or column."""
    seed: int = 0
    """Seed of obfuscation and augmentation."""
    style: str = "per_question"
    """API style of the generated tools: per_question | sel | slot (worlds.sql.ingest.style_import)."""
    drop_empty: bool = True
    """Quality filter (worlds.sql.ingest.quality): leave out questions whose SQL returns nothing (the study's
    default)."""
    max_rows: int | None = 100
    """Quality filter: leave out questions whose SQL returns more rows (None: any number; the study's 100)."""
    only_split: bool = False
    """Quality filter: keep only questions with two solution paths (per_question style)."""
    query_time_limit_s: float = QUERY_TIME_LIMIT_S
    """Seconds any one query may run during the import; past it the import stops, naming the question."""
    describe_model: str | None = None
    """The model asked for each function's description once the world is built (its caller asks it: see
    ``worlds.sql.describe.describe_model``); None: the offline descriptions only."""

    def __post_init__(self) -> None:
        if self.style not in STYLES:
            raise ImportOptionError("style", f"unknown style '{self.style}' (one of {', '.join(STYLES)})")
        if self.augment < 0:
            raise ImportOptionError("augment", f"{self.augment} is not a number of extra tasks (0 or more)")
        for name, used in (("augment", self.augment), ("only_split", self.only_split)):
            if used and self.style != "per_question":
                raise ImportOptionError(name, f"works with style per_question only, not '{self.style}'")
        if self.max_rows is not None and self.max_rows < 1:
            raise ImportOptionError("max_rows", f"{self.max_rows} is not a row count (1 or more; None: no limit)")
        if not 0 < self.query_time_limit_s <= MAX_QUERY_TIME_LIMIT_S:  # also refuses nan and inf
            raise ImportOptionError(
                "query_time_limit_s",
                f"{self.query_time_limit_s} is not a number of seconds in (0, {MAX_QUERY_TIME_LIMIT_S:g}]",
            )
        if self.obfuscate and self.describe_model is not None:
            raise ImportOptionError(
                "describe_model", "a model's description names tables and columns, which obfuscation hides"
            )


@dataclass(frozen=True)
class ImportedWorld:
    name: str
    functions: list[SqlFunction]
    tasks: list[Task]
    databases: dict[str, Path]
    report: ImportReport
    style: str = "per_question"
    initial: dict[str, dict[str, Any]] = field(default_factory=dict)
    """SLOT style: task id -> its initialisation step (``style_slot_gold.Initial`` as JSON), for join questions."""
    obfuscate_seed: int | None = None
    """The seed a SLOT world's codes come from (its tools are generic: the loader rebuilds the names from it)."""
