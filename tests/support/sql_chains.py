"""Checks that a SQL world's function chains reproduce each question's SQL result."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

from sim.core import Task, ToolCall, WorldContext
from worlds.sql.engine.execute import open_readonly, run_query
from worlds.sql.engine.world import SqlPack
from worlds.sql.styles.style_slot import SlotWorld
from worlds.sql.styles.style_slot_gold import SlotPack


def replay(world: Any, task: Task) -> list[Any]:
    """Every gold call of the task on ``world``; each must succeed."""
    contents = []
    for n, gold in enumerate(task.goals[0].gold):
        result = asyncio.run(world.call(ToolCall(id=f"c{n}", name=gold.name, arguments=dict(gold.arguments))))
        assert result.status == "success", (task.id, gold, result.content)
        contents.append(result.content)
    return contents


def chain_rows(pack: SqlPack | SlotPack, task: Task) -> list[tuple[Any, ...]]:
    """The rows the task's gold chain produces, read off the world (not the importer's own check)."""
    world = pack.new_world(0, WorldContext(task=task))  # a join question's world starts from its joined tables
    contents = replay(world, task)
    if isinstance(world, SlotWorld):
        assert isinstance(pack, SlotPack)
        return list(pack.runtime.result(world.last()).rows)
    gold = task.goals[0].gold
    if not gold[-1].name.startswith("get_"):  # a count, an aggregate or distinct values: the last call's rows
        rows = [tuple(record.values()) for record in contents[-1]]
        sql_columns = task.description.split(": ", 1)[1].lower().split(" from ")[0]
        if "_rows_per_" in gold[-1].name and sql_columns.index("count(") < len(sql_columns) // 2:
            rows = [(count, value) for value, count in rows]  # the query projects its count first
        return rows
    getters = [c for g, c in zip(gold, contents, strict=True) if g.role == "core"]
    sorts = [c for g, c in zip(gold, contents, strict=True) if g.name.startswith("sort_")]
    keys = [record["key"] for record in (sorts[-1] if sorts else getters[0])]
    by_key = [{record["key"]: list(record.values())[1] for record in content} for content in getters]
    return [tuple(values[key] for values in by_key) for key in keys]


def sql_rows(connection: sqlite3.Connection, task: Task) -> list[tuple[Any, ...]]:
    sql = task.description.split(": ", 1)[1]
    return list(run_query(connection, sql).rows)


def check_chains(pack: SqlPack | SlotPack, databases: dict[str, Path]) -> int:
    connections = {db_id: open_readonly(path) for db_id, path in databases.items()}
    for task in pack.tasks():
        expected = sql_rows(connections[task.tags[1]], task)
        got = chain_rows(pack, task)
        ordered = "ORDER BY" in task.description.upper()
        assert (got if ordered else sorted(got, key=repr)) == (expected if ordered else sorted(expected, key=repr)), (
            task.id
        )
    return len(pack.tasks())
