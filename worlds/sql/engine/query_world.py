"""The SQL-writing baseline's world (``--agent sql:MODEL``): the same database and questions as a SQL world, but one
tool, ``execute_sql(query)``, and the schema (its CREATE statements) in the instructions.

The study that turns text-to-SQL sets into APIs (SLOT/SEL/REST on BIRD) compares tool calling with a model that
writes SQL over the original database; this is that arm. The agent's SQL is untrusted text, so it meets every lock
the generated queries do (``execute``: ``mode=ro``, ``PRAGMA query_only``, an authorizer that allows only reads, a
time limit) and two more: one statement, starting ``SELECT`` or ``WITH``, and at most ``MAX_SHOWN_ROWS`` rows shown.
The tasks are the SQL world's own: the answer judges score the reply; no world function is called, so the judges
of calls say n/a (``sim.core.agent_kinds``).
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from sim.core import Task, ToolCall, ToolResult, ToolSpec, WorldContext, WorldPack, failure
from sim.core.frozen import freeze
from worlds.sql.engine.execute import QueryError, QueryLimitError, open_readonly, run_query

TOOL_NAME = "execute_sql"
MAX_SHOWN_ROWS = 100
"""Rows one result shows (the importer's quality filter keeps answers of at most 100 rows)."""
QUERY_TIME_LIMIT_S = 10.0
"""Seconds one agent query may run: the questions' own SQL answers in well under a second."""
MAX_QUERY_CHARS = 20_000

INSTRUCTIONS = """\
You answer questions about data in the {db_id} database by writing SQL. You have one tool, {tool}(query): it runs \
one read-only SQLite query (a single SELECT or WITH statement) and returns the rows as JSON records (at most \
{rows} rows are shown).
- Look at the schema below; use the exact spelling of values as the data has them.
- Answer in words with the exact values the query returned. If nothing matches, say so.

Schema of {db_id}:
{schema}"""

_COMMENT = re.compile(r"\s*(--[^\n]*(\n|$)|/\*.*?\*/)", re.DOTALL)
_FIRST_WORD = re.compile(r"\s*([A-Za-z]+)")


@runtime_checkable
class SqlDatabases(Protocol):
    """A pack whose tools query SQLite files: what the SQL-writing agent's world is built from."""

    name: str

    @property
    def database_files(self) -> Mapping[str, Path]:
        """Database id -> its SQLite file."""
        ...

    def tasks(self) -> list[Task]: ...


def tool_spec() -> ToolSpec:
    return ToolSpec(
        name=TOOL_NAME,
        description=f"Run one read-only SQLite query (a single SELECT or WITH statement) on the database; returns "
        f"the rows as JSON records (at most {MAX_SHOWN_ROWS} shown).",
        parameters={
            "type": "object",
            "properties": {"query": {"type": "string", "description": "The SQL query."}},
            "required": ["query"],
            "additionalProperties": False,
        },
        read_only=True,
    )


def statement_problem(query: str) -> str | None:
    """Why ``query`` is not one SELECT/WITH statement (None: it is). The authorizer refuses writes anyway; this
    refuses them before SQLite sees them, with a reason the agent can act on."""
    text = query
    while match := _COMMENT.match(text):
        text = text[match.end() :]
    text = text.strip().rstrip(";").strip()
    if not text:
        return "the query is empty"
    first = _FIRST_WORD.match(text)
    if first is None or first.group(1).upper() not in ("SELECT", "WITH"):
        return "only a single SELECT or WITH statement may run (the database is read-only)"
    if not sqlite3.complete_statement(text + ";") or _more_than_one(text):
        return "only one statement may run at a time"
    return None


def _more_than_one(text: str) -> bool:
    """A ``;`` outside quotes and comments before the end: a second statement."""
    quote: str | None = None
    for char in text:
        if quote is not None:
            quote = None if char == quote else quote
        elif char in "'\"`[":
            quote = "]" if char == "[" else char
        elif char == ";":
            return True
    return False


class SqlSchema:
    """One database's read-only connection (shared by every episode, used under a lock) and its CREATE statements."""

    def __init__(self, db_id: str, path: Path) -> None:
        self.db_id = db_id
        self.connection = open_readonly(path, QUERY_TIME_LIMIT_S)
        self.lock = threading.Lock()
        rows = run_query(
            self.connection,
            "SELECT sql FROM sqlite_master WHERE type IN ('table', 'view') AND sql IS NOT NULL "
            "AND name NOT LIKE 'sqlite_%' ORDER BY type, name",
        ).values()
        self.create_statements = "\n".join(f"{str(sql).strip()};" for sql in rows)


class SqlQueryWorld:
    """One episode's handle on one database: stateless (every query reads), so snapshots are empty."""

    def __init__(self, name: str, schema: SqlSchema, seed: int = 0) -> None:
        self.name = name
        self.seed = seed
        self._schema = schema
        self._instructions = INSTRUCTIONS.format(
            db_id=schema.db_id, tool=TOOL_NAME, rows=MAX_SHOWN_ROWS, schema=schema.create_statements
        )

    def specs(self) -> list[ToolSpec]:
        return [tool_spec()]

    def instructions(self) -> str:
        return self._instructions

    async def call(self, call: ToolCall) -> ToolResult:
        if call.name != TOOL_NAME:
            return failure(
                call, "not_found", "unknown_tool", f"No tool named '{call.name}'; the one tool is {TOOL_NAME}."
            )
        query = call.arguments.get("query")
        if not isinstance(query, str) or set(call.arguments) != {"query"}:
            return failure(
                call, "invalid_arguments", "query_not_text", f"{TOOL_NAME} takes one argument, query (text)."
            )
        if len(query) > MAX_QUERY_CHARS:
            return failure(
                call, "invalid_arguments", "query_too_long", f"The query is over {MAX_QUERY_CHARS} characters."
            )
        if (problem := statement_problem(query)) is not None:
            return failure(call, "invalid_arguments", "not_one_select", f"Refused: {problem}.")
        try:
            with self._schema.lock:
                result = run_query(self._schema.connection, query)
        except (QueryError, QueryLimitError) as error:
            return failure(call, "failed", "query_failed", f"The query failed: {error}")
        records = result.records()
        content: Any = records
        if len(records) > MAX_SHOWN_ROWS:
            content = {
                "rows": records[:MAX_SHOWN_ROWS],
                "note": f"{len(records)} rows; the first {MAX_SHOWN_ROWS} shown",
            }
        return ToolResult(call_id=call.id, status="success", content=freeze(content))

    def snapshot(self) -> dict[str, Any]:
        return {}

    def restore(self, snapshot: Any) -> None:
        """Nothing to restore: no query changes anything."""

    def state_hash(self) -> str:
        return hashlib.sha256(f"{self.name}:{self._schema.db_id}".encode()).hexdigest()[:16]


class SqlQueryPack:
    """A SQL world's tasks over its databases, each episode offered ``execute_sql`` on its question's database (the
    task's tags name it, as every SQL import tags them; a world of one database needs no tag)."""

    def __init__(self, pack: SqlDatabases) -> None:
        self.source = pack
        """The SQL world whose functions the gold calls (its gold plans are checked there)."""
        self.name = pack.name
        self._tasks = tuple(pack.tasks())
        files = dict(pack.database_files)
        if not files:
            raise ValueError(f"world {pack.name!r} has no database for execute_sql")
        self._schemas = {db_id: SqlSchema(db_id, path) for db_id, path in sorted(files.items())}
        for task in self._tasks:
            self.database_of(task)  # a task naming no database of a many-database world: refused before any episode

    def database_of(self, task: Task | None) -> SqlSchema:
        if task is None or len(self._schemas) == 1:
            return next(iter(self._schemas.values()))
        named = [self._schemas[tag] for tag in dict.fromkeys(task.tags) if tag in self._schemas]
        if len(named) != 1:
            raise ValueError(
                f"task {task.id!r} of world {self.name!r} names {len(named)} of its databases in its tags; "
                "execute_sql needs exactly one"
            )
        return named[0]

    def tasks(self) -> list[Task]:
        return list(self._tasks)

    def tool_specs(self) -> list[ToolSpec]:
        return [tool_spec()]

    def new_world(self, seed: int, context: WorldContext | None = None) -> SqlQueryWorld:
        return SqlQueryWorld(self.name, self.database_of(context.task if context else None), seed=seed)


def sql_query_pack(pack: WorldPack) -> SqlQueryPack:
    """The SQL-writing agent's view of ``pack``. Raises ValueError naming the world when it is not a SQL world."""
    if not isinstance(pack, SqlDatabases):
        raise ValueError(
            f"world {pack.name!r} is not a SQL world: an sql: agent writes SQL over a SQL world's database "
            "(sql_sample, or one made by `squall import spider|bird`)"
        )
    return SqlQueryPack(pack)
