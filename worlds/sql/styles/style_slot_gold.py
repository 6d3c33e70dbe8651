"""SLOT gold chains derived from a question's shape, verified by running them on a fresh SLOT world; the pack."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.core import GoldCall, Task, ToolSpec, WorldContext
from worlds.common.task_check import check_tasks_static
from worlds.sql.engine.execute import QueryError, QueryResult, results_equal
from worlds.sql.query.literals import GenerateError
from worlds.sql.styles.style_join import JoinedTable
from worlds.sql.styles.style_shape import ORDER_BY_AGGREGATE, Shape
from worlds.sql.styles.style_slot import Node, SlotError, SlotRuntime, SlotWorld, joined_node, quote

INSTRUCTIONS = """\
You answer questions about data in the {databases} database(s) using only the tools provided. Start with \
retrieve(table); every tool returns a label (r1, r2, ...) for its result, which later tools take as `ref`.
- Arguments are names and values, never SQL. Use the exact spelling of values as the data has them.
- Answer with the exact values of the last result. If nothing matches, say so."""


def slot_chain(shape: Shape, runtime: SlotRuntime, db_id: str, expected: QueryResult) -> list[GoldCall]:
    """The gold chain of a question of this shape, kept only if its last result equals ``expected``."""
    start = joined_node(db_id, shape.join) if shape.join is not None else None
    world = SlotWorld("verify", runtime, "", start=start)
    calls: list[GoldCall] = []

    def step(tool: str, **arguments: Any) -> str:
        if "ref" in arguments:
            arguments = {"ref": f"r{len(world.refs)}"} | {k: v for k, v in arguments.items() if k != "ref"}
        try:
            content = world.execute(tool, arguments)
        except (SlotError, QueryError) as error:
            raise GenerateError("slot:step_error", f"{tool}: {error}") from error
        calls.append(GoldCall(name=tool, arguments=arguments, role="core"))
        return str(content["ref"])

    if start is None:
        step("retrieve", table=runtime.public_name(db_id, shape.table))
    for condition in shape.conditions:
        step("filter", ref=None, column=condition.column, op=condition.op, value=condition.value)
    wanted = list(shape.columns)
    sorted_from: list[tuple[Node, str, bool]] = []
    """The result the sort step orders, its column and direction (for the tie check)."""
    if shape.aggregate is not None:
        aggregate = shape.aggregate
        if shape.distinct:
            raise GenerateError("slot:distinct_aggregate", "DISTINCT beside an aggregate")
        if aggregate.distinct:  # f(DISTINCT x): f over the distinct values (a NULL among them f skips, as SQL)
            if shape.group_by:
                raise GenerateError("slot:grouped_distinct_aggregate", "f(DISTINCT x) per group")
            step("distinct", ref=None, column=aggregate.column)
        if shape.group_by:
            step("group", ref=None, columns=shape.group_by)
        step("aggregate", ref=None, function=aggregate.function, column=aggregate.column)
        alias = world.last().columns[-1]
        for condition in shape.having:
            step("filter", ref=None, column=alias, op=condition.op, value=condition.value)
        if not shape.aggregate_hidden:
            wanted = [alias, *wanted] if shape.aggregate_first else [*wanted, alias]
        if shape.order is not None:
            column = alias if shape.order[0] == ORDER_BY_AGGREGATE else shape.order[0]
            sorted_from.append((world.last(), column, shape.order[1]))
    elif shape.order is not None:
        sorted_from.append((world.last(), shape.order[0], shape.order[1]))
    if sorted_from:
        arguments: dict[str, Any] = {"ref": None, "column": sorted_from[0][1], "descending": sorted_from[0][2]}
        if shape.limit is not None:
            arguments["limit"] = shape.limit
        step("sort", **arguments)
    if list(world.last().columns) != wanted:
        step("transform", ref=None, columns=wanted)
    if shape.distinct:
        if len(wanted) != 1:
            raise GenerateError("slot:distinct_several", "DISTINCT over several columns")
        step("distinct", ref=None, column=wanted[0])
    try:
        got = runtime.result(world.last())
    except (SlotError, QueryError) as error:
        raise GenerateError("slot:step_error", str(error)) from error
    if not results_equal(expected, got, ordered=shape.order is not None):
        if sorted_from and shape.limit is not None and _tied(runtime, *sorted_from[0], shape.limit):
            raise GenerateError("slot:tied_limit", "rows tied at the LIMIT: SQLite's pick is not the chain's")
        if shape.group_extended:
            raise GenerateError("slot:ungrouped_columns", "columns beside the GROUP BY that its key does not fix")
        raise GenerateError("slot:mismatch", "the SLOT chain returns other rows than the SQL")
    return calls


def _tied(runtime: SlotRuntime, node: Node, column: str, descending: bool, limit: int) -> bool:
    """Whether the row after the LIMIT sorts level with the last one kept (then which is kept is arbitrary)."""
    sql = f"SELECT {quote(column)} FROM ({node.sql}) ORDER BY 1{' DESC' if descending else ''} LIMIT {limit + 1}"
    rows = runtime.run(node, sql).rows
    return len(rows) > limit and rows[limit - 1] == rows[limit]


def start_note(join: JoinedTable) -> str:
    """What the instructions say of a question's r1 when its initialisation step joined tables."""
    on = "; ".join(" and ".join(f"{a} = {b}" for a, b in edge.on) for edge in join.edges)
    return (
        f"- This question starts from r1, already made: the rows of {', '.join(join.tables)} joined ({on}). "
        f"Its columns: {', '.join(join.columns)}. Take r1 as the ref of your first call."
    )


@dataclass(frozen=True)
class Initial:
    """A task's initialisation step: the joined tables its world starts from as r1."""

    db_id: str
    join: JoinedTable

    def to_json(self) -> dict[str, Any]:
        return {"db_id": self.db_id, "join": self.join.to_json()}

    @classmethod
    def from_json(cls, data: Any) -> Initial:
        return cls(str(data["db_id"]), JoinedTable.from_json(data["join"]))


class SlotPack:
    """A SLOT world's databases and tasks, loaded once; ``new_world`` is cheap (a label table, empty or holding
    the task's initialisation step)."""

    def __init__(
        self,
        name: str,
        tasks: Sequence[Task],
        databases: Mapping[str, Path],
        initial: Mapping[str, Initial] | None = None,
    ) -> None:
        """``initial``: task id -> the initialisation step its episodes start from. Raises ValueError when the
        tasks do not fit the tools or an initialisation names a task or database the world lacks."""
        self.name = name
        self.runtime = SlotRuntime(databases)
        self.database_files = dict(databases)
        """Database id -> its SQLite file (what ``--agent sql:`` queries)."""
        self._tasks = tuple(tasks)
        check_tasks_static(self._tasks, name, self.runtime.checkers)
        self._instructions = INSTRUCTIONS.format(databases=", ".join(sorted(databases)) or "given")
        self._initial = dict(initial or {})
        ids = {task.id for task in self._tasks}
        for task_id, step in sorted(self._initial.items()):
            if task_id not in ids or step.db_id not in databases:
                raise ValueError(f"initialisation of '{task_id}' names no task or database of the world")

    def tasks(self) -> list[Task]:
        return list(self._tasks)

    def tool_specs(self) -> list[ToolSpec]:
        return list(self.runtime.specs)

    def new_world(self, seed: int, context: WorldContext | None = None) -> SlotWorld:
        task = context.task if context is not None else None
        step = self._initial.get(task.id) if task is not None else None
        if step is None:
            return SlotWorld(self.name, self.runtime, self._instructions, seed=seed)
        instructions = f"{self._instructions}\n{start_note(step.join)}"
        return SlotWorld(self.name, self.runtime, instructions, seed=seed, start=joined_node(step.db_id, step.join))
