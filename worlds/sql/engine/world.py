"""A SQL-derived world: its tools are generated read-only queries over SQLite files.

The world has no state an agent can change, so a world per episode is a thin handle on one shared
``SqlRuntime`` (connections, compiled argument checkers, a result cache): 10,000 episodes cost one set of
connections. Results are lists of JSON records; an empty result (no rows, or an aggregate's row of nulls) names
close matches for string arguments, as a search box does ("did you mean ...").
"""

from __future__ import annotations

import difflib
import hashlib
import json
import sqlite3
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sim.core import Task, ToolCall, ToolResult, ToolSpec, WorldContext, failure
from sim.core.frozen import freeze
from worlds.common.arguments import ArgumentChecker
from worlds.common.task_check import check_tasks_static
from worlds.sql.engine.execute import Column, QueryError, QueryLimitError, distinct_values, open_readonly, run_query
from worlds.sql.engine.model import SqlFunction

INSTRUCTIONS = """\
You answer questions about data in the {databases} database(s) using only the tools provided; each tool runs one \
fixed, read-only query and returns a list of JSON records.
- Arguments are values, never SQL. Use the exact spelling of values as the data has them.
- Some questions need two calls: the result of one query is the input of another.
- Answer with the exact values the tools returned. If nothing matches, say so."""
_CACHE_LIMIT = 20_000
_HINTS = 3


class SqlRuntime:
    """What every episode of one SQL world shares. Thread-safe: sqlite3 connections are used under a lock."""

    def __init__(self, functions: Sequence[SqlFunction], databases: Mapping[str, Path]) -> None:
        self.functions = {f.name: f for f in functions}
        missing = sorted({f.db_id for f in functions} - set(databases))
        if missing:
            raise ValueError(f"functions name database(s) with no file: {', '.join(missing)}")
        self.specs = [f.spec() for f in functions]
        self.checkers = {spec.name: ArgumentChecker(spec.parameters) for spec in self.specs}
        self._paths = dict(databases)
        self._connections: dict[str, sqlite3.Connection] = {}
        self._results: dict[str, Any] = {}
        self._values: dict[tuple[str, str], list[str]] = {}
        self._lock = threading.Lock()

    def connection(self, db_id: str) -> sqlite3.Connection:
        if db_id not in self._connections:
            self._connections[db_id] = open_readonly(self._paths[db_id])
        return self._connections[db_id]

    def answer(self, function: SqlFunction, arguments: dict[str, Any], own: sqlite3.Connection | None = None) -> Any:
        """The call's content: records, or on an empty result records plus a hint. Raises QueryError. ``own``: an
        episode's own copy of the database (a world event changed it): asked directly, never cached."""
        key = f"{function.name}\x00{json.dumps(arguments, sort_keys=True, default=str)}"
        with self._lock:
            if own is None and key in self._results:
                return self._results[key]
            connection = own if own is not None else self.connection(function.db_id)
            records = run_query(connection, function.sql, function.bindings(arguments)).records()
            empty = not records or nothing_aggregated(records)
            # Frozen: one cached result is handed to every episode that asks the same.
            content: Any = freeze(self._empty(function, arguments, records) if empty else records)
            if own is None and len(self._results) < _CACHE_LIMIT:
                self._results[key] = content
            return content

    def own_copy(self, db_id: str) -> sqlite3.Connection:
        """A private, writable in-memory copy of a database, for an episode whose world an event changes."""
        if db_id not in self._paths:
            raise ValueError(f"no database {db_id!r} (known: {', '.join(sorted(self._paths))})")
        copy = sqlite3.connect(":memory:", check_same_thread=False)
        with self._lock:
            self.connection(db_id).backup(copy)
        return copy

    def _empty(self, function: SqlFunction, arguments: dict[str, Any], records: list[dict[str, Any]]) -> Any:
        """The records (none, or an aggregate's row of nulls), with a hint naming close values when there are any."""
        hints: list[str] = []
        for param in function.params:
            value = arguments.get(param.name)
            if param.column is None or not isinstance(value, str) or param.type != "string":
                continue
            close = close_matches(value, self._column_values(function.db_id, param.column))
            if close:
                hints.append(f"{param.name}={value!r} matched nothing; close values: {', '.join(map(repr, close))}")
        if not hints:
            return records
        return {"results": records, "hint": "No rows matched. " + "; ".join(hints) + "."}

    def _column_values(self, db_id: str, column: str) -> list[str]:
        key = (db_id, column)
        if key not in self._values:
            table, _, name = column.partition(".")
            try:
                values = distinct_values(self.connection(db_id), Column(table, name, ""))
            except QueryError:
                values = []
            self._values[key] = [v for v in values if isinstance(v, str)]
        return self._values[key]

    def close(self) -> None:
        with self._lock:
            for connection in self._connections.values():
                connection.close()
            self._connections.clear()


def nothing_aggregated(records: Sequence[Mapping[str, Any]]) -> bool:
    """One row of nulls: an aggregate (``MAX``, ``AVG``, ``SUM``) over no rows, as empty as no rows at all."""
    return len(records) == 1 and all(value is None for value in records[0].values())


def close_matches(value: str, candidates: Sequence[str]) -> list[str]:
    """Up to three values spelled like ``value`` (case-insensitive), the exact one excluded."""
    lowered = {c.lower(): c for c in candidates}
    needle = value.lower()
    found = [lowered[c] for c in difflib.get_close_matches(needle, list(lowered), n=_HINTS + 1, cutoff=0.6)]
    found += [c for c in candidates if needle and needle in c.lower()]  # the value is part of a longer one
    return [c for c in dict.fromkeys(found) if c != value][:_HINTS]


class SqlWorld:
    """One episode's handle; stateless, so snapshots are empty and every state hashes alike, until a timed world event
    changes the data (``apply_change``): then the episode queries its own copy of that database, and its snapshot is
    the statements applied."""

    def __init__(self, name: str, runtime: SqlRuntime, instructions: str, seed: int = 0) -> None:
        self.name = name
        self.seed = seed
        self._runtime = runtime
        self._instructions = instructions
        self._edits: list[dict[str, str]] = []
        self._own: dict[str, sqlite3.Connection] = {}

    def specs(self) -> list[ToolSpec]:
        return list(self._runtime.specs)

    def instructions(self) -> str:
        return self._instructions

    async def call(self, call: ToolCall) -> ToolResult:
        function = self._runtime.functions.get(call.name)
        if function is None:
            return failure(call, "not_found", "unknown_tool", f"No tool named '{call.name}'.")
        checker = self._runtime.checkers[call.name]
        problem = checker.problems(call.arguments)
        if problem is not None:
            return failure(call, "invalid_arguments", problem[0], problem[1])
        try:
            content = self._runtime.answer(function, checker.normalised(call.arguments), self._own.get(function.db_id))
        except (QueryError, QueryLimitError) as error:
            return failure(call, "failed", "query_failed", f"The query failed: {error}")
        return ToolResult(call_id=call.id, status="success", content=content)

    def apply_change(self, edit: dict[str, Any]) -> None:
        """A timed world event (``sim.core.ChangeableWorld``): ``{"db": id, "sql": statement}``, run on this episode's
        own copy of the database (made at the first change)."""
        db_id, sql = edit.get("db"), edit.get("sql")
        if not isinstance(db_id, str) or not isinstance(sql, str) or not sql.strip():
            raise ValueError("an edit names a 'db' and the 'sql' statement that changes it")
        own = self._own.get(db_id) or self._runtime.own_copy(db_id)
        try:
            own.execute(sql)
        except sqlite3.Error as error:
            raise ValueError(f"the statement failed on {db_id}: {error}") from error
        self._own[db_id] = own
        self._edits.append({"db": db_id, "sql": sql})

    def snapshot(self) -> dict[str, Any]:
        return {"edits": list(self._edits)} if self._edits else {}

    def restore(self, snapshot: Any) -> None:
        edits = list(snapshot.get("edits", [])) if isinstance(snapshot, dict) else []
        if edits == self._edits:
            return
        self._edits, self._own = [], {}
        for edit in edits:
            self.apply_change(edit)

    def state_hash(self) -> str:
        text = self.name + (json.dumps(self._edits, sort_keys=True) if self._edits else "")
        return hashlib.sha256(text.encode()).hexdigest()[:16]


class SqlPack:
    """A SQL world's functions, tasks and databases, loaded once; ``new_world`` is cheap."""

    def __init__(
        self, name: str, functions: Sequence[SqlFunction], tasks: Sequence[Task], databases: Mapping[str, Path]
    ) -> None:
        """Raises ValueError when the tasks do not fit the functions."""
        self.name = name
        self._runtime = SqlRuntime(functions, databases)
        self.database_files = dict(databases)
        """Database id -> its SQLite file (what ``--agent sql:`` queries)."""
        self._tasks = tuple(tasks)
        check_tasks_static(self._tasks, name, self._runtime.checkers)
        used = sorted({f.db_id for f in functions})
        self._instructions = INSTRUCTIONS.format(databases=", ".join(used) or "given")

    def tasks(self) -> list[Task]:
        return list(self._tasks)

    def tool_specs(self) -> list[ToolSpec]:
        return list(self._runtime.specs)

    def new_world(self, seed: int, context: WorldContext | None = None) -> SqlWorld:
        return SqlWorld(self.name, self._runtime, self._instructions, seed=seed)

    @property
    def functions(self) -> list[SqlFunction]:
        return list(self._runtime.functions.values())
