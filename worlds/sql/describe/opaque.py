"""Descriptions for obfuscated worlds: what a function does, with no table or column name of its database.

Tables become ``table <n>`` and columns ``field <n>`` (numbers shuffled by the seed, stable within a database, so
an agent can learn that field 5 holds genres by calling), the database ``database <n>``. A field compared with an
argument is shown with its type and a few of its most common values (spelled as the data has them; never the
values a function returns, which could be an answer); other fields with their type only. Any value that
contains a table or column name is left out, and a last guard masks any name that still slipped in.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import sqlglot
from sqlglot.errors import SqlglotError

from worlds.sql.describe.leaks import name_pattern, query_names
from worlds.sql.engine.execute import Column, QueryError, run_query
from worlds.sql.engine.model import SqlFunction, SqlParam
from worlds.sql.query.prose import Prose, Schema

EXAMPLES = 3
_EXAMPLE_CHARS = 40
_MASK = "(withheld)"
_NUMERIC = ("INT", "REAL", "FLOA", "DOUB", "DEC", "NUM")


@dataclass
class OpaqueNamer:
    """Codes for one database's tables and columns; remembers the fields one description mentions."""

    schema: Schema
    tables: dict[str, int]
    fields: dict[tuple[str, str], int]
    mentioned: dict[tuple[str, str], int] = field(default_factory=dict)

    def entity(self, table: str) -> str:
        return f"table {self.tables.get(table.lower(), 0)}"

    def field(self, table: str | None, column: str, qualify: bool) -> str:
        key = (table or "").lower(), column.lower()
        if key not in self.fields:  # an unqualified column: the one table of the schema that has it, if only one
            owners = [t for t, columns in self.schema.items() if column.lower() in columns]
            key = (owners[0], column.lower()) if len(owners) == 1 else key
        number = self.fields.get(key)
        if number is None:
            return "a computed field"
        self.mentioned.setdefault(key, number)
        return f"field {number}"


@dataclass(frozen=True)
class OpaqueDatabase:
    """One database's codes and its connection (read-only) for example values."""

    label: str
    schema: Schema
    connection: sqlite3.Connection
    tables: dict[str, int]
    fields: dict[tuple[str, str], int]

    @classmethod
    def build(cls, label: str, schema: Schema, connection: sqlite3.Connection, seed: int) -> OpaqueDatabase:
        rng = random.Random(f"{seed}:{label}")
        tables = sorted(schema)
        columns = sorted((t, c) for t in tables for c in schema[t])
        rng.shuffle(tables)
        rng.shuffle(columns)
        return cls(
            label,
            schema,
            connection,
            {t: n for n, t in enumerate(tables, 1)},
            {key: n for n, key in enumerate(columns, 1)},
        )

    def namer(self) -> OpaqueNamer:
        return OpaqueNamer(self.schema, self.tables, self.fields)

    def names(self) -> list[str]:
        """Every table and column name of the database."""
        columns = [c for cs in self.schema.values() for c in cs.values()]
        return list(dict.fromkeys([*(c.table for c in columns), *(c.name for c in columns)]))

    def examples(self, column: Column) -> list[str]:
        """Up to ``EXAMPLES`` of the column's most common values, as quoted text."""
        table, name = column.table.replace('"', '""'), column.name.replace('"', '""')
        sql = (
            f'SELECT "{name}", COUNT(*) AS n FROM "{table}" WHERE "{name}" IS NOT NULL '
            f'GROUP BY "{name}" ORDER BY n DESC, "{name}" LIMIT 30'
        )
        try:
            rows = run_query(self.connection, sql).rows
        except QueryError:
            return []
        hidden = name_pattern(self.names())
        shown: list[str] = []
        for value, _ in rows:
            text = str(value)
            if isinstance(value, bytes) or not text.strip() or len(text) > _EXAMPLE_CHARS or "'" in text:
                continue
            if hidden is not None and hidden.search(text):
                continue
            shown.append(text if isinstance(value, int | float) else f"'{text}'")
            if len(shown) == EXAMPLES:
                break
        return shown


def kind(column: Column) -> str:
    declared = column.declared_type.upper()
    if "INT" in declared:
        return "whole number"
    return "number" if any(word in declared for word in _NUMERIC) else "text"


def opaque_function(function: SqlFunction, db: OpaqueDatabase) -> SqlFunction:
    """``function`` with a summary and argument descriptions that name no table or column."""
    namer = db.namer()
    try:
        tree = sqlglot.parse_one(function.sql, read="sqlite")
        body = Prose(namer).sentence(tree)
    except SqlglotError:
        body = "Returns rows of a table."
    compared = {_key(p.column) for p in function.params if p.column}
    details = []
    for key, number in sorted(namer.mentioned.items(), key=lambda item: item[1]):
        column = db.schema[key[0]][key[1]]
        examples = db.examples(column) if key in compared else []
        such = f", such as {', '.join(examples)}" if examples else ""
        details.append(f"field {number}: {kind(column)}{such}")
    fields = f" Fields: {'; '.join(details)}." if details else ""
    summary = f"{body}{fields} Data: {db.label}; the result is a list of JSON records, one per row."
    params = [p.model_copy(update={"description": _param_text(p, db)}) for p in function.params]
    hide = _hider(function, db)
    params = [p.model_copy(update={"description": hide(p.description)}) for p in params]
    return function.model_copy(update={"summary": hide(summary), "params": params})


def _param_text(param: SqlParam, db: OpaqueDatabase) -> str:
    if param.column:
        table, _, name = param.column.partition(".")
        number = db.fields.get((table.lower(), name.lower()))
        column = db.schema.get(table.lower(), {}).get(name.lower())
        if number is not None and column is not None:
            verb = "contained in" if param.contains else "compared with"
            return f"A value ({kind(column)}) {verb} field {number}."
    if param.description.startswith(("Maximum number of rows", "Number of leading rows")):
        return param.description
    if param.type == "array":
        return "A list of values, as another of these functions returns them."
    return "A value, as another of these functions returns it."


def _key(column: str) -> tuple[str, str]:
    table, _, name = column.partition(".")
    return table.lower(), name.lower()


def _hider(function: SqlFunction, db: OpaqueDatabase) -> Callable[[str], str]:
    tables, columns = query_names(function.sql)
    pattern = name_pattern([*tables, *columns, *db.names()])

    def hide(text: str) -> str:
        return pattern.sub(_MASK, text) if pattern is not None else text

    return hide


def opaque_databases(
    schemas: Mapping[str, Schema], connections: Mapping[str, sqlite3.Connection], seed: int
) -> dict[str, OpaqueDatabase]:
    """Codes for every database; a lone database is "the database", several are numbered in name order."""
    ordered = sorted(schemas)
    labels = {db_id: "the database" if len(ordered) == 1 else f"database {n}" for n, db_id in enumerate(ordered, 1)}
    return {db_id: OpaqueDatabase.build(labels[db_id], schemas[db_id], connections[db_id], seed) for db_id in ordered}
