"""Read-only SQLite access: the only way a SQL world touches a database.

Three locks, each enough on its own against a write: the file is opened ``mode=ro``, ``PRAGMA query_only`` is
on, and an authorizer refuses every action but reading (so not even a TEMP table can be made: list inputs go
through ``json_each(?)`` instead). Queries are fixed at import time; whatever an agent sends is bound as a
parameter, never spliced into SQL text.

Every query is bounded too (``ReadOnlyConnection``): a time limit (a recursive CTE may never end), a size limit on
any one value (``randomblob(2000000000)``), and limits on the rows and bytes fetched. An import refuses a question
set whose SQL passes one (``QueryLimitError``); a world's tool call that does fails that call.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_ALLOWED_ACTIONS = frozenset({sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION})
_RECURSIVE = getattr(sqlite3, "SQLITE_RECURSIVE", 33)  # WITH RECURSIVE reads only


QUERY_TIME_LIMIT_S = 30.0
"""Seconds one query may run: far past any query of Spider or BIRD, which answer in well under a second."""
MAX_VALUE_BYTES = 64 << 20
"""The largest text or blob SQLite may make (SQLITE_LIMIT_LENGTH; its default is 1 GB)."""
MAX_ROWS = 1_000_000
MAX_RESULT_BYTES = 256 << 20
"""Rows and bytes (text and blobs counted by length, other values as 8) one result may hold."""
_CLOCK_EVERY = 1000
"""SQLite virtual-machine steps between two looks at the clock (a few microseconds)."""
_FETCH_BATCH = 1000


class QueryError(ValueError):
    """SQL that SQLite refuses (syntax, unknown column, a write)."""


class QueryLimitError(ValueError):
    """A query past a limit above. Not a QueryError: an import refuses the input instead of rejecting the question
    (the next one may hang the same way)."""

    def __init__(self, problem: str, sql: str) -> None:
        super().__init__(problem)
        self.sql = sql
        """The query that ran (an import finds its question by it: each question's own SQL runs first)."""


class ReadOnlyConnection(sqlite3.Connection):
    """A connection whose queries ``run_query`` runs under a deadline (per thread: a world shares one connection
    between episodes on worker threads) and that makes no value over MAX_VALUE_BYTES."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.time_limit_s = QUERY_TIME_LIMIT_S
        self._deadline = threading.local()
        self.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
        self.set_progress_handler(self._past_deadline, _CLOCK_EVERY)

    def _past_deadline(self) -> int:
        """Non-zero: SQLite interrupts the running statement."""
        at: float | None = getattr(self._deadline, "at", None)
        return int(at is not None and time.monotonic() > at)

    @contextmanager
    def deadline(self) -> Iterator[None]:
        self._deadline.at = time.monotonic() + self.time_limit_s
        try:
            yield
        finally:
            self._deadline.at = None


@dataclass(frozen=True)
class QueryResult:
    """Rows as tuples, with the column names the cursor reported."""

    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]

    def records(self) -> list[dict[str, Any]]:
        """Rows as JSON records; duplicate column names (``T1.name, T2.name``) get ``_2``, ``_3`` suffixes."""
        keys = record_keys(self.columns)
        return [{k: json_value(v) for k, v in zip(keys, row, strict=True)} for row in self.rows]

    def values(self) -> list[Any]:
        """The first column's values (the answer of a one-column query)."""
        return [json_value(row[0]) for row in self.rows]


def record_keys(columns: Sequence[str]) -> list[str]:
    keys: list[str] = []
    for column in columns:
        key, n = column, 2
        while key in keys:
            key, n = f"{column}_{n}", n + 1
        keys.append(key)
    return keys


def json_value(value: Any) -> Any:
    """SQLite values as JSON: blobs become hex text (nothing else needs changing)."""
    return value.hex() if isinstance(value, bytes) else value


def _authorize(action: int, arg1: str | None, arg2: str | None, db: str | None, trigger: str | None) -> int:
    if action in _ALLOWED_ACTIONS or action == _RECURSIVE:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_UPDATE and arg1 == "sqlite_master":
        return sqlite3.SQLITE_OK  # json_each declares its virtual table so; mode=ro and query_only still refuse writes
    return sqlite3.SQLITE_DENY


def open_readonly(path: Path, time_limit_s: float = QUERY_TIME_LIMIT_S) -> ReadOnlyConnection:
    """A connection that cannot change anything, its queries bounded. ``check_same_thread`` is off so a pack may
    share it between episodes that run on worker threads; sqlite3 serialises access itself."""
    if not Path(path).is_file():
        raise QueryError(f"{path}: no such database file")
    uri = f"{Path(path).resolve().as_uri()}?mode=ro"
    connection = sqlite3.connect(uri, uri=True, check_same_thread=False, factory=ReadOnlyConnection)
    connection.time_limit_s = time_limit_s
    connection.execute("PRAGMA query_only = ON")
    connection.text_factory = lambda raw: raw.decode("utf-8", errors="replace")  # Spider has a few latin-1 bytes
    connection.set_authorizer(_authorize)
    return connection


def run_query(connection: sqlite3.Connection, sql: str, parameters: Mapping[str, Any] | None = None) -> QueryResult:
    """Run one SELECT with bound parameters. Raises QueryError on anything SQLite refuses, QueryLimitError past a
    limit (the time limit only on a ``ReadOnlyConnection``)."""
    bounded = connection.deadline() if isinstance(connection, ReadOnlyConnection) else _unbounded()
    rows: list[tuple[Any, ...]] = []
    size = 0
    with bounded:
        try:
            cursor = connection.execute(sql, dict(parameters or {}))
            while len(rows) <= MAX_ROWS and size <= MAX_RESULT_BYTES and (batch := cursor.fetchmany(_FETCH_BATCH)):
                rows.extend(tuple(row) for row in batch)
                size += sum(len(v) if isinstance(v, str | bytes) else 8 for row in batch for v in row)
        except sqlite3.Error as error:
            raise _limit_error(error, connection, sql) or QueryError(str(error)) from error
        except (OverflowError, ValueError) as error:
            raise QueryError(str(error)) from error
    if len(rows) > MAX_ROWS:
        raise QueryLimitError(f"the query returns over {MAX_ROWS:,} rows", sql)
    if size > MAX_RESULT_BYTES:
        raise QueryLimitError(f"the query's result is over {MAX_RESULT_BYTES >> 20} MiB", sql)
    columns = tuple(d[0] for d in cursor.description or ())
    return QueryResult(columns=columns, rows=tuple(rows))


@contextmanager
def _unbounded() -> Iterator[None]:
    yield


def _limit_error(error: sqlite3.Error, connection: sqlite3.Connection, sql: str) -> QueryLimitError | None:
    code = getattr(error, "sqlite_errorcode", None)
    if code == sqlite3.SQLITE_INTERRUPT and isinstance(connection, ReadOnlyConnection):
        return QueryLimitError(f"the query ran past the {connection.time_limit_s:g} s time limit", sql)
    if code == sqlite3.SQLITE_TOOBIG:
        return QueryLimitError(f"the query makes a value over the {MAX_VALUE_BYTES >> 20} MiB limit", sql)
    return None


@dataclass(frozen=True)
class Column:
    table: str
    name: str
    declared_type: str
    label: str = ""
    """A readable name for the column where the database documents one (BIRD's ``column_name``)."""
    description: str = ""
    """What the column holds, where documented (BIRD's ``column_description`` and ``value_description``)."""


def read_schema(path: Path) -> dict[str, dict[str, Column]]:
    """Table (lower-case) -> column (lower-case) -> Column, read once before any query runs."""
    uri = f"{Path(path).resolve().as_uri()}?mode=ro"
    connection = sqlite3.connect(uri, uri=True)
    try:
        tables = [r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")]
        schema: dict[str, dict[str, Column]] = {}
        for table in tables:
            info = connection.execute(f'PRAGMA table_info("{table.replace(chr(34), chr(34) * 2)}")').fetchall()
            schema[table.lower()] = {row[1].lower(): Column(table, row[1], str(row[2] or "")) for row in info}
        return schema
    except sqlite3.Error as error:
        raise QueryError(f"{path}: cannot read the schema: {error}") from error
    finally:
        connection.close()


def distinct_values(connection: sqlite3.Connection, column: Column, limit: int = 5000) -> list[Any]:
    """Distinct non-null values of one column (for hints and augmentation), in a stable order."""
    table = column.table.replace('"', '""')
    name = column.name.replace('"', '""')
    sql = f'SELECT DISTINCT "{name}" FROM "{table}" WHERE "{name}" IS NOT NULL ORDER BY 1 LIMIT {int(limit)}'
    return [row[0] for row in run_query(connection, sql).rows]


def results_equal(left: QueryResult, right: QueryResult, ordered: bool) -> bool:
    """Same rows (as multisets, or as sequences when the query orders them); column names are not compared."""
    a = [tuple(json_value(v) for v in row) for row in left.rows]
    b = [tuple(json_value(v) for v in row) for row in right.rows]
    if ordered:
        return a == b
    return sorted(a, key=_sort_key) == sorted(b, key=_sort_key)


def _sort_key(row: tuple[Any, ...]) -> tuple[tuple[int, str], ...]:
    return tuple((0 if v is None else 1, repr(v)) for v in row)
