"""The SLOT style obfuscated: ``function_<n>`` tools with ``<greek>_<greek>`` arguments and ``table_<n>`` tables.

SLOT's tools are generic (retrieve, filter, sort...), so nothing of a question's query is in their text; what
names the schema is the table list in ``retrieve``'s description and the table an agent passes. Both become codes
(shuffled by the seed): an agent finds what a table holds by retrieving it. Column names stay: they are what a
retrieved result's preview shows, not what a description tells. The world translates each call back to the real
tools before running it, and a refusal that lists tables lists their codes. Gold chains are renamed at import;
the folder records the seed (``obfuscate_seed`` in world.toml), from which the loader rebuilds the same names.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.core import Task, ToolCall, ToolResult, ToolSpec, WorldContext, failure
from sim.core.frozen import thaw
from worlds.common.arguments import ArgumentChecker
from worlds.common.task_check import check_tasks_static
from worlds.sql.describe.obfuscate import GREEK
from worlds.sql.styles.style_slot import SlotRuntime, SlotWorld

_PAIRS = [f"{a}_{b}" for a in GREEK for b in GREEK if a != b]
INSTRUCTIONS = """\
You answer questions about data in the {databases} database(s) using only the tools provided. One tool starts \
a result from a whole table; every tool returns a label (r1, r2, ...) for its result, which later tools take as \
the reference of an earlier result.
- Arguments are names and values, never SQL. Use the exact spelling of values as the data has them.
- Answer with the exact values of the last result. If nothing matches, say so."""


@dataclass(frozen=True)
class SlotNames:
    """Real tool -> code, per tool real argument -> code, public table name -> code."""

    tools: dict[str, str]
    arguments: dict[str, dict[str, str]]
    tables: dict[str, str]

    @classmethod
    def build(cls, specs: Sequence[ToolSpec], tables: Sequence[str], seed: int) -> SlotNames:
        rng = random.Random(f"slot:{seed}")
        numbers = rng.sample(range(100, 1000), len(specs))
        tools = {s.name: f"function_{n}" for s, n in zip(specs, numbers, strict=True)}
        arguments = {}
        for spec in specs:
            names = list(spec.parameters.get("properties", {}))
            arguments[spec.name] = dict(zip(names, rng.sample(_PAIRS, len(names)), strict=True))
        order = sorted(tables)
        rng.shuffle(order)
        return cls(tools, arguments, {table: f"table_{n}" for n, table in enumerate(order, 1)})

    def spec(self, spec: ToolSpec) -> ToolSpec:
        schema = thaw(spec.parameters)
        renames = self.arguments[spec.name]
        schema["properties"] = {renames[k]: v for k, v in schema.get("properties", {}).items()}
        schema["required"] = [renames[k] for k in schema.get("required", [])]
        return ToolSpec(
            name=self.tools[spec.name],
            description=self.hide_tables(spec.description),
            parameters=schema,
            read_only=spec.read_only,
        )

    def hide_tables(self, text: str) -> str:
        if not self.tables:
            return text
        names = "|".join(re.escape(t) for t in sorted(self.tables, key=len, reverse=True))
        lowered = {t.lower(): code for t, code in self.tables.items()}
        return re.sub(rf"(?<![\w.])(?:{names})(?![\w.])", lambda m: lowered[m.group(0).lower()], text, flags=re.I)

    def forward(self, name: str, arguments: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """A real call as the obfuscated world spells it (for gold chains)."""
        renames = self.arguments[name]
        return self.tools[name], {renames[k]: self._value(v, self.tables) for k, v in arguments.items()}

    def back(self, call: ToolCall) -> ToolCall | None:
        """The real call an obfuscated one stands for; None for a name no tool has."""
        real = next((name for name, code in self.tools.items() if code == call.name), None)
        if real is None:
            return None
        back_args = {code: name for name, code in self.arguments[real].items()}
        codes = {code: table for table, code in self.tables.items()}
        arguments = {back_args.get(k, k): self._value(v, codes) for k, v in call.arguments.items()}
        return call.model_copy(update={"name": real, "arguments": arguments})

    @staticmethod
    def _value(value: Any, mapping: Mapping[str, str]) -> Any:
        if isinstance(value, str):
            return mapping.get(value, value)
        if isinstance(value, list):
            return [mapping.get(v, v) if isinstance(v, str) else v for v in value]
        return value

    def rename_tasks(self, tasks: Sequence[Task]) -> list[Task]:
        out = []
        for task in tasks:
            data = task.model_dump(mode="json")
            for goal in data["goals"]:
                for path in [goal["gold"], *goal["alternatives"]]:
                    for call in path:
                        call["name"], call["arguments"] = self.forward(call["name"], call["arguments"])
            out.append(Task.model_validate(data))
        return out


class ObfuscatedSlotWorld:
    """One episode of an obfuscated SLOT world: a SLOT world behind the codes."""

    def __init__(self, inner: SlotWorld, names: SlotNames, specs: list[ToolSpec]) -> None:
        self.name = inner.name
        self.seed = inner.seed
        self._inner = inner
        self._names = names
        self._specs = specs

    def specs(self) -> list[ToolSpec]:
        return list(self._specs)

    def instructions(self) -> str:
        return self._inner.instructions()

    async def call(self, call: ToolCall) -> ToolResult:
        real = self._names.back(call)
        if real is None:
            return failure(call, "not_found", "unknown_tool", f"No tool named '{call.name}'.")
        result = await self._inner.call(real)
        content = result.content
        if not result.ok and isinstance(content, dict) and isinstance(content.get("error"), str):
            content = {**content, "error": self._rename_arguments(real.name, self._names.hide_tables(content["error"]))}
        return result.model_copy(update={"call_id": call.id, "content": content})

    def _rename_arguments(self, tool: str, text: str) -> str:
        for name, code in self._names.arguments[tool].items():  # messages quote the argument they are about
            text = text.replace(f"'{name}'", f"'{code}'")
        return text

    def snapshot(self) -> Any:
        return self._inner.snapshot()

    def restore(self, snapshot: Any) -> None:
        self._inner.restore(snapshot)

    def state_hash(self) -> str:
        return self._inner.state_hash()


class ObfuscatedSlotPack:
    """A SLOT world whose tool, argument and table names are codes derived from ``seed``."""

    def __init__(self, name: str, tasks: Sequence[Task], databases: Mapping[str, Path], seed: int) -> None:
        self.name = name
        self.runtime = SlotRuntime(databases)
        self.database_files = dict(databases)
        """Database id -> its SQLite file (what ``--agent sql:`` queries)."""
        self.names = SlotNames.build(self.runtime.specs, list(self.runtime.tables), seed)
        self._specs = [self.names.spec(s) for s in self.runtime.specs]
        self._tasks = tuple(tasks)
        check_tasks_static(self._tasks, name, {s.name: ArgumentChecker(s.parameters) for s in self._specs})
        self._instructions = INSTRUCTIONS.format(databases=", ".join(sorted(databases)) or "given")

    def tasks(self) -> list[Task]:
        return list(self._tasks)

    def tool_specs(self) -> list[ToolSpec]:
        return list(self._specs)

    def new_world(self, seed: int, context: WorldContext | None = None) -> ObfuscatedSlotWorld:
        inner = SlotWorld(self.name, self.runtime, self._instructions, seed=seed)
        return ObfuscatedSlotWorld(inner, self.names, self._specs)
