"""The SLOT style: a few generic tools over tables, chaining server-side intermediate results by label.

``retrieve(table)`` starts a result ``r1``; ``filter``, ``sort``, ``group``, ``aggregate``, ``distinct`` and
``transform`` each take a label and return a new one with a preview. A label stands for a query composed from
the previous one (not for copied rows), so SQLite itself evaluates every step and the chain's semantics are
exactly SQL's. A question that joins tables starts from ``r1`` already made: the joined table of its
initialisation step (``style_join``), as the API-styles study does. The agent never writes SQL: tables and columns
are resolved against the schema and the labelled result's own columns, operators and functions against
allow-lists, and values are bound as parameters. The labels are the world's per-episode state; snapshot, restore
and state_hash cover them.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sim.core import ToolCall, ToolResult, ToolSpec, failure
from worlds.common.arguments import ArgumentChecker
from worlds.sql.engine.execute import (
    QUERY_TIME_LIMIT_S,
    QueryError,
    QueryLimitError,
    QueryResult,
    open_readonly,
    read_schema,
    run_query,
)
from worlds.sql.engine.model import LIKE_ESCAPE, escape_like
from worlds.sql.query.literals import identifier_word
from worlds.sql.styles.style_join import JoinedTable

OPERATORS = {"=": "=", "!=": "!=", ">": ">", ">=": ">=", "<": "<", "<=": "<=", "contains": "LIKE"}
FUNCTIONS = ("count", "sum", "avg", "min", "max")
PREVIEW = 50
_REF = {"type": "string", "description": "Label of an earlier result (r1, r2, ...)."}
_COLUMNS = {"type": "array", "items": {"type": "string"}, "minItems": 1}


class SlotError(ValueError):
    """A call the tools refuse; ``code`` is the error code the agent sees."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Node:
    """A labelled intermediate result: the query that computes it, its bindings and columns."""

    db_id: str
    sql: str
    params: tuple[tuple[str, Any], ...]
    columns: tuple[str, ...]
    group: tuple[str, ...] = ()


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> ToolSpec:
    schema = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    return ToolSpec(name=name, description=description, parameters=schema, read_only=True)


def slot_specs(tables: list[str]) -> list[ToolSpec]:
    shown = ", ".join(tables[:200]) + (" ..." if len(tables) > 200 else "")
    after = " Returns the new result's label, its columns, row count and first rows."
    return [
        _tool("retrieve", f"Starts a result holding every row of a table (tables: {shown}).{after}",
              {"table": {"type": "string", "description": "Table name."}}, ["table"]),
        _tool("filter", "Keeps the rows whose column compares with value as op says ('contains': a substring)." + after,
              {"ref": _REF, "column": {"type": "string"}, "op": {"type": "string", "enum": list(OPERATORS)},
               "value": {"type": ["string", "number"]}}, ["ref", "column", "op", "value"]),
        _tool("sort", "Orders the rows by a column, optionally keeping only the first limit rows." + after,
              {"ref": _REF, "column": {"type": "string"}, "descending": {"type": "boolean"},
               "limit": {"type": "integer", "minimum": 1}}, ["ref", "column"]),
        _tool("group", "Groups the rows by columns; aggregate the grouped result next." + after,
              {"ref": _REF, "columns": _COLUMNS}, ["ref", "columns"]),
        _tool("aggregate", "Computes function over a column ('*' with count), per group of a grouped result." + after,
              {"ref": _REF, "function": {"type": "string", "enum": list(FUNCTIONS)}, "column": {"type": "string"}},
              ["ref", "function", "column"]),
        _tool("distinct", "The distinct values of one column." + after,
              {"ref": _REF, "column": {"type": "string"}}, ["ref", "column"]),
        _tool("transform", "Keeps only the given columns, in the given order." + after,
              {"ref": _REF, "columns": _COLUMNS}, ["ref", "columns"]),
    ]  # fmt: skip


class SlotRuntime:
    """What every episode of one SLOT world shares: schemas, specs, read-only connections (used under a lock)."""

    def __init__(self, databases: Mapping[str, Path], time_limit_s: float = QUERY_TIME_LIMIT_S) -> None:
        self._paths = dict(databases)
        self._time_limit_s = time_limit_s
        self.tables: dict[str, tuple[str, str, tuple[str, ...]]] = {}
        """Public table name -> (db_id, table, columns); ``db.table`` where a name is in several databases."""
        found: list[tuple[str, str, tuple[str, ...]]] = []
        for db_id, path in sorted(self._paths.items()):
            for columns in read_schema(path).values():
                if columns:
                    found.append((db_id, next(iter(columns.values())).table, tuple(c.name for c in columns.values())))
        names = [table.lower() for _, table, _ in found]
        for db_id, table, names_of in found:
            public = table if names.count(table.lower()) == 1 else f"{db_id}.{table}"
            self.tables[public] = (db_id, table, names_of)
        self.specs = slot_specs(sorted(self.tables))
        self.checkers = {spec.name: ArgumentChecker(spec.parameters) for spec in self.specs}
        self._connections: dict[str, sqlite3.Connection] = {}
        self._lock = threading.Lock()

    def public_name(self, db_id: str, table: str) -> str:
        return next(k for k, (d, t, _) in self.tables.items() if d == db_id and t.lower() == table.lower())

    def run(self, node: Node, sql: str) -> QueryResult:
        with self._lock:
            if node.db_id not in self._connections:
                self._connections[node.db_id] = open_readonly(self._paths[node.db_id], self._time_limit_s)
            return run_query(self._connections[node.db_id], sql, dict(node.params))

    def result(self, node: Node) -> QueryResult:
        """The labelled result in full (what the chain's last step answers)."""
        if node.group:
            raise SlotError("grouped_result", "A grouped result has no rows until it is aggregated.")
        return self.run(node, node.sql)

    def close(self) -> None:
        with self._lock:
            for connection in self._connections.values():
                connection.close()
            self._connections.clear()


class SlotWorld:
    """One episode: the labels made so far. Labels count up from r1, so replays are deterministic."""

    def __init__(
        self, name: str, runtime: SlotRuntime, instructions: str, seed: int = 0, start: Node | None = None
    ) -> None:
        """``start``: the initialisation step's result (a question's joined tables), labelled r1 before any call."""
        self.name = name
        self.seed = seed
        self._runtime = runtime
        self._instructions = instructions
        self.refs: dict[str, Node] = {"r1": start} if start is not None else {}

    def specs(self) -> list[ToolSpec]:
        return list(self._runtime.specs)

    def instructions(self) -> str:
        return self._instructions

    async def call(self, call: ToolCall) -> ToolResult:
        checker = self._runtime.checkers.get(call.name)
        if checker is None:
            return failure(call, "not_found", "unknown_tool", f"No tool named '{call.name}'.")
        problem = checker.problems(call.arguments)
        if problem is not None:
            return failure(call, "invalid_arguments", problem[0], problem[1])
        try:
            content = self.execute(call.name, dict(call.arguments))
        except SlotError as error:
            return failure(call, "invalid_arguments", error.code, str(error))
        except (QueryError, QueryLimitError) as error:
            return failure(call, "failed", "query_failed", f"The step failed: {error}")
        return ToolResult(call_id=call.id, status="success", content=content)

    def execute(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Run one step and label its result. Raises SlotError on a bad name, QueryError if SQLite refuses."""
        if tool == "retrieve":
            node = self._retrieve(str(arguments["table"]))
        else:
            node = self._step(tool, self._ref(arguments.get("ref")), arguments)
        label = f"r{len(self.refs) + 1}"
        self.refs[label] = node
        return self._preview(label, node)

    def last(self) -> Node:
        return self.refs[f"r{len(self.refs)}"]

    def _retrieve(self, table: str) -> Node:
        tables = self._runtime.tables
        match = tables.get(table) or next((v for k, v in tables.items() if k.lower() == table.lower()), None)
        if match is None:
            raise SlotError("unknown_table", f"No table '{table}'; tables: {', '.join(sorted(tables))}.")
        db_id, name, columns = match
        return Node(db_id, f"SELECT * FROM {quote(name)}", (), columns)

    def _ref(self, ref: Any) -> Node:
        if not isinstance(ref, str) or ref not in self.refs:
            made = ", ".join(self.refs) or "none yet: call retrieve first"
            raise SlotError("unknown_ref", f"No result labelled '{ref}'; labels: {made}.")
        return self.refs[ref]

    def _step(self, tool: str, node: Node, arguments: dict[str, Any]) -> Node:
        if node.group and tool != "aggregate":
            raise SlotError("grouped_result", f"'{tool}' needs rows; aggregate the grouped result first.")
        source = f"FROM ({node.sql})"
        if tool == "filter":
            column, op = _column(node, arguments["column"]), arguments["op"]
            if op not in OPERATORS:
                raise SlotError("unknown_operator", f"No operator '{op}'; operators: {', '.join(OPERATORS)}.")
            slot = f"v{len(node.params)}"
            value = arguments["value"]
            test = f":{slot}"
            if op == "contains":  # a substring, never a pattern: '%' in the value matches a '%'
                test, value = f"'%' || :{slot} || '%' ESCAPE '{LIKE_ESCAPE}'", escape_like(str(value))
            sql = f"SELECT * {source} WHERE {quote(column)} {OPERATORS[op]} {test}"
            return Node(node.db_id, sql, (*node.params, (slot, value)), node.columns)
        if tool == "sort":
            column = _column(node, arguments["column"])
            order = " DESC" if arguments.get("descending") else ""
            limit = arguments.get("limit")
            tail = f" LIMIT {int(limit)}" if isinstance(limit, int) and limit > 0 else ""
            return Node(
                node.db_id, f"SELECT * {source} ORDER BY {quote(column)}{order}{tail}", node.params, node.columns
            )
        if tool == "group":
            group = _columns(node, arguments["columns"])
            return Node(node.db_id, node.sql, node.params, node.columns, group)
        if tool == "aggregate":
            return _aggregate(node, str(arguments["function"]), str(arguments["column"]))
        if tool == "distinct":
            column = _column(node, arguments["column"])
            return Node(node.db_id, f"SELECT DISTINCT {quote(column)} {source}", node.params, (column,))
        if tool == "transform":
            columns = _columns(node, arguments["columns"])
            listed = ", ".join(quote(c) for c in columns)
            return Node(node.db_id, f"SELECT {listed} {source}", node.params, columns)
        raise SlotError("unknown_tool", f"No tool named '{tool}'.")

    def _preview(self, label: str, node: Node) -> dict[str, Any]:
        if node.group:
            groups = self._runtime.run(
                node, f"SELECT COUNT(*) FROM (SELECT DISTINCT {_listed(node.group)} FROM ({node.sql}))"
            )
            return {
                "ref": label,
                "grouped_by": list(node.group),
                "groups": groups.rows[0][0],
                "columns": list(node.columns),
            }
        count = self._runtime.run(node, f"SELECT COUNT(*) FROM ({node.sql})").rows[0][0]
        rows = self._runtime.run(node, f"SELECT * FROM ({node.sql}) LIMIT {PREVIEW}").records()
        return {
            "ref": label,
            "columns": list(node.columns),
            "row_count": count,
            "rows": rows,
            "truncated": count > PREVIEW,
        }

    def snapshot(self) -> dict[str, Any]:
        """JSON-native (lists, not tuples), so a stored snapshot restores to the same state."""
        return {label: json.loads(json.dumps(asdict(node), default=str)) for label, node in self.refs.items()}

    def restore(self, snapshot: Any) -> None:
        self.refs = {
            label: Node(
                n["db_id"], n["sql"], tuple(tuple(p) for p in n["params"]), tuple(n["columns"]), tuple(n["group"])
            )
            for label, n in dict(snapshot).items()
        }

    def state_hash(self) -> str:
        return hashlib.sha256(json.dumps(self.snapshot(), sort_keys=True, default=str).encode()).hexdigest()[:16]


def joined_node(db_id: str, join: JoinedTable) -> Node:
    """The initialisation step's result: the joined tables as one labelled result, columns ``table.column``."""
    return Node(db_id, join.sql(), (), join.columns)


def _listed(columns: tuple[str, ...]) -> str:
    return ", ".join(quote(c) for c in columns)


def _column(node: Node, name: Any) -> str:
    by_lower = {c.lower(): c for c in node.columns}
    if not isinstance(name, str) or name.lower() not in by_lower:
        raise SlotError("unknown_column", f"No column '{name}' in this result; columns: {', '.join(node.columns)}.")
    return by_lower[name.lower()]


def _columns(node: Node, names: Any) -> tuple[str, ...]:
    columns = tuple(_column(node, name) for name in list(names or []))
    if not columns or len(set(columns)) != len(columns):
        raise SlotError("bad_columns", "Name one or more distinct columns of the result.")
    return columns


def _aggregate(node: Node, function: str, column: str) -> Node:
    if function not in FUNCTIONS:
        raise SlotError("unknown_function", f"No function '{function}'; functions: {', '.join(FUNCTIONS)}.")
    if column == "*":
        if function != "count":
            raise SlotError("unknown_column", "'*' goes with count only.")
        argument, alias = "*", "count_all"
    else:
        name = _column(node, column)
        argument, alias = quote(name), f"{function}_{identifier_word(name)}"
    while alias.lower() in (g.lower() for g in node.group):
        alias += "_value"
    group = f" GROUP BY {_listed(node.group)}" if node.group else ""
    keys = f"{_listed(node.group)}, " if node.group else ""
    sql = f"SELECT {keys}{function.upper()}({argument}) AS {quote(alias)} FROM ({node.sql}){group}"
    return Node(node.db_id, sql, node.params, (*node.group, alias))
