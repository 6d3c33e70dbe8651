"""Read-only SQLite access: the only way a SQL world touches a database.

Three locks, each enough on its own against a write: the file is opened ``mode=ro``, ``PRAGMA query_only`` is
on, and an authorizer refuses every action but reading (so not even a TEMP table can be made: list inputs go
through ``json_each(?)`` instead). Queries are fixed at import time; whatever an agent sends is bound as a
parameter, never spliced into SQL text.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_ALLOWED_ACTIONS = frozenset({sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION})
_RECURSIVE = getattr(sqlite3, "SQLITE_RECURSIVE", 33)  # WITH RECURSIVE reads only


class QueryError(ValueError):
    """SQL that SQLite refuses (syntax, unknown column, a write)."""


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


def open_readonly(path: Path) -> sqlite3.Connection:
    """A connection that cannot change anything. ``check_same_thread`` is off so a pack may share it between
    episodes that run on worker threads; sqlite3 serialises access itself."""
    if not Path(path).is_file():
        raise QueryError(f"{path}: no such database file")
    uri = f"{Path(path).resolve().as_uri()}?mode=ro"
    connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
    connection.execute("PRAGMA query_only = ON")
    connection.text_factory = lambda raw: raw.decode("utf-8", errors="replace")  # Spider has a few latin-1 bytes
    connection.set_authorizer(_authorize)
    return connection


def run_query(connection: sqlite3.Connection, sql: str, parameters: Mapping[str, Any] | None = None) -> QueryResult:
    """Run one SELECT with bound parameters. Raises QueryError on anything SQLite refuses."""
    try:
        cursor = connection.execute(sql, dict(parameters or {}))
        rows = tuple(tuple(row) for row in cursor.fetchall())
    except (sqlite3.Error, OverflowError, ValueError) as error:
        raise QueryError(str(error)) from error
    columns = tuple(d[0] for d in cursor.description or ())
    return QueryResult(columns=columns, rows=rows)


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
