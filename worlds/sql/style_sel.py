"""The SEL style: per table, condition-bound selectors that return row keys and one getter per column.

Every tool is still a fixed read-only ``SqlFunction`` (so the world, its runtime and its folder are the
per-question ones): ``list_<t>_keys()``, ``select_<t>_by_<c>(value)`` (plus ``_above/_below/_at_least/_at_most``
for numeric columns), ``get_<t>_<c>(keys)``, and per database ``intersect_keys(first, second)`` and
``count_keys(keys)``. A row's key is its SQLite rowid: every table has one, and it is stable in a read-only file.
A question's gold chain (selectors, intersections, then getters or a count) is derived from its shape and kept
only if running it reproduces the SQL's result.
"""

from __future__ import annotations

from typing import Any

from sim.core import GoldCall
from worlds.sql.execute import Column, QueryError, QueryResult, results_equal
from worlds.sql.literals import GenerateError, column_subject, identifier_word
from worlds.sql.model import SqlFunction, SqlParam
from worlds.sql.prose import humanize
from worlds.sql.style_shape import Shape
from worlds.sql.verify import Database, run_function

MAX_NAME = 60
_OPS = {"=": "", ">": "_above", "<": "_below", ">=": "_at_least", "<=": "_at_most"}
_OP_WORDS = {"=": "equal to", ">": "greater than", "<": "less than", ">=": "at least", "<=": "at most"}
_NUMERIC = ("INT", "REAL", "FLOA", "DOUB", "DEC", "NUM")
_KEYS_OUT = "Returns a list of records {key}, one per matching row."


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def is_numeric(column: Column) -> bool:
    declared = column.declared_type.upper()
    return any(word in declared for word in _NUMERIC)


def _words(column: Column) -> str:
    """The column as descriptions call it (its documented label, or its name in words): never raw SQL text."""
    return column.label or humanize(column.name)


def _notes(column: Column) -> str:
    return f" About it: {column.description.rstrip('.')}." if column.description else ""


def _keys_param(slot: str, name: str, what: str) -> SqlParam:
    return SqlParam(slot=slot, name=name, type="array", items="integer", description=what)


class SelLibrary:
    """The SEL functions of the databases questions use, built per database on first use, uniquely named."""

    def __init__(self) -> None:
        self._by_key: dict[tuple[str, str], SqlFunction] = {}
        self._names: set[str] = set()
        self._done: set[str] = set()

    def functions(self) -> list[SqlFunction]:
        return list(self._by_key.values())

    def function(self, db_id: str, key: str) -> SqlFunction:
        return self._by_key[(db_id, key)]

    def add_database(self, db: Database) -> None:
        if db.db_id in self._done:
            return
        self._done.add(db.db_id)
        self._add(db.db_id, "intersect", "intersect_keys", _intersect(db.db_id))
        self._add(db.db_id, "count", "count_keys", _count(db.db_id))
        for table_key, columns in db.schema.items():
            if not columns:
                continue
            table = next(iter(columns.values())).table
            word = identifier_word(table)
            sql = f"SELECT rowid AS key FROM {_quote(table)} ORDER BY rowid"
            summary = f"Lists the key of every row of table {table} in the {db.db_id} database. {_KEYS_OUT}"
            self._add(db.db_id, f"list:{table_key}", f"list_{word}_keys", SqlFunction(
                name="", db_id=db.db_id, sql=sql, summary=summary))  # fmt: skip
            for column_key, column in columns.items():
                self._add_column(db.db_id, table_key, column_key, column)

    def _add_column(self, db_id: str, table_key: str, column_key: str, column: Column) -> None:
        table, word, cword = column.table, identifier_word(column.table), identifier_word(column.name)
        where = f"{table}.{column.name}"
        numeric = is_numeric(column)
        json_type = ("integer" if "INT" in column.declared_type.upper() else "number") if numeric else "string"
        for op, suffix in _OPS.items():
            if op != "=" and not numeric:
                continue
            said = f"Value {column_subject(column)} must be {_OP_WORDS[op]}."
            value = SqlParam(slot="p0", name="value", type=json_type, description=said, column=where)
            sql = f"SELECT rowid AS key FROM {_quote(table)} WHERE {_quote(column.name)} {op} :p0 ORDER BY rowid"
            summary = (
                f"Selects the rows of table {table} ({db_id} database) whose {_words(column)} is "
                f"{_OP_WORDS[op]} ⟨p0⟩. {_KEYS_OUT}"
            )
            self._add(db_id, f"select:{table_key}:{column_key}:{op}", f"select_{word}_by_{cword}{suffix}",
                      SqlFunction(name="", db_id=db_id, sql=sql, params=[value], summary=summary))  # fmt: skip
        keys = _keys_param("p0", "keys", f"Keys of {table} rows (from a select_/list_ tool).")
        sql = (
            f"SELECT rowid AS key, {_quote(column.name)} FROM {_quote(table)} "
            f"WHERE rowid IN (SELECT value FROM json_each(:p0)) ORDER BY rowid"
        )
        summary = (
            f"Gets {_words(column)} of the {table} rows ({db_id} database) whose keys are in ⟨p0⟩. "
            f"Returns records {{`key`, `{column.name}`}} in key order.{_notes(column)}"
        )
        self._add(db_id, f"get:{table_key}:{column_key}", f"get_{word}_{cword}",
                  SqlFunction(name="", db_id=db_id, sql=sql, params=[keys], summary=summary))  # fmt: skip

    def _add(self, db_id: str, key: str, stem: str, function: SqlFunction) -> None:
        name, n = stem[:MAX_NAME].rstrip("_"), 2
        base = name
        while name in self._names:
            name, n = f"{base}_{n}", n + 1
        self._names.add(name)
        self._by_key[(db_id, key)] = function.model_copy(update={"name": name})


def _intersect(db_id: str) -> SqlFunction:
    sql = "SELECT value AS key FROM json_each(:p0) WHERE value IN (SELECT value FROM json_each(:p1)) ORDER BY value"
    return SqlFunction(
        name="",
        db_id=db_id,
        sql=sql,
        params=[_keys_param("p0", "first", "One list of keys."), _keys_param("p1", "second", "Another list of keys.")],
        summary=f"The keys in both ⟨p0⟩ and ⟨p1⟩ (rows of the {db_id} database meeting both conditions). {_KEYS_OUT}",
    )


def _count(db_id: str) -> SqlFunction:
    return SqlFunction(
        name="",
        db_id=db_id,
        sql="SELECT COUNT(*) AS count FROM json_each(:p0)",
        params=[_keys_param("p0", "keys", "The keys to count.")],
        summary=f"How many keys ⟨p0⟩ holds (rows of the {db_id} database). Returns [{{count}}].",
    )


def sel_chain(shape: Shape, db: Database, library: SelLibrary, expected: QueryResult) -> list[GoldCall]:
    """The verified SEL gold chain of a question of this shape; raises GenerateError when there is none."""
    for unsupported, present in (("group_by", shape.group_by), ("order_by", shape.order), ("distinct", shape.distinct)):
        if present:
            raise GenerateError(f"sel:{unsupported}", "the SEL tools cannot express it")
    if shape.aggregate is not None and (shape.aggregate.function, shape.aggregate.column) != ("count", "*"):
        raise GenerateError(f"sel:aggregate_{shape.aggregate.function}", "only COUNT(*) has a SEL tool")
    table_key = shape.table.lower()
    calls: list[GoldCall] = []

    def run(key: str, arguments: dict[str, Any], role: str) -> QueryResult:
        function = library.function(db.db_id, key)
        try:
            result = run_function(db.connection, function, arguments)
        except QueryError as error:
            raise GenerateError("sel:query_error", str(error)) from error
        calls.append(GoldCall(name=function.name, arguments=arguments, role=role))
        return result

    if not shape.conditions:
        keys = _keys(run(f"list:{table_key}", {}, "support"))
    for n, condition in enumerate(shape.conditions):
        column = db.schema[table_key][condition.column.lower()]
        if condition.op not in _OPS:
            raise GenerateError("sel:operator", f"no SEL selector for '{condition.op}'")
        if condition.op != "=" and not is_numeric(column):
            raise GenerateError("sel:comparison_on_text", f"{column.table}.{column.name} {condition.op}")
        value = _typed(condition.value, column)
        selected = _keys(run(f"select:{table_key}:{column.name.lower()}:{condition.op}", {"value": value}, "support"))
        keys = selected if n == 0 else _keys(run("intersect", {"first": keys, "second": selected}, "support"))
    if shape.aggregate is not None:
        rows = run("count", {"keys": keys}, "core").rows
    else:
        got = [run(f"get:{table_key}:{c.lower()}", {"keys": keys}, "core") for c in shape.columns]
        rows = tuple(zip(*([row[1] for row in result.rows] for result in got), strict=True))
    if not results_equal(expected, QueryResult(columns=expected.columns, rows=rows), ordered=False):
        raise GenerateError("sel:mismatch", "the SEL chain returns other rows than the SQL")
    return calls


def _keys(result: QueryResult) -> list[int]:
    return [int(row[0]) for row in result.rows]


def _typed(value: Any, column: Column) -> Any:
    """The literal as the selector's JSON type wants it; a mismatch is a rejection, not a silent cast."""
    if not is_numeric(column):
        return value if isinstance(value, str) else str(value)
    integer = "INT" in column.declared_type.upper()
    if isinstance(value, str):
        try:
            value = int(value) if integer else float(value)
        except ValueError as error:
            raise GenerateError("sel:value_type", f"{value!r} for numeric {column.name}") from error
    if integer and isinstance(value, float):
        raise GenerateError("sel:value_type", f"{value!r} for integer {column.name}")
    return value
