"""The SEL style: per table, condition-bound selectors that return row keys and one getter per column.

Every tool is still a fixed read-only ``SqlFunction`` (so the world, its runtime and its folder are the
per-question ones): ``list_<t>_keys()``, ``select_<t>_by_<c>(value)`` (plus ``_above/_below/_at_least/_at_most``
for numeric columns), ``get_<t>_<c>(keys)``, and per database ``intersect_keys(first, second)`` and
``count_keys(keys)``. A row's key is its SQLite rowid: every table has one, and it is stable in a read-only file.
A question's gold chain (selectors, intersections, then getters or a count) is derived from its shape and kept
only if running it reproduces the SQL's result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sim.core import GoldCall
from worlds.sql.execute import Column, QueryError, QueryResult, results_equal
from worlds.sql.literals import GenerateError, identifier_word
from worlds.sql.model import SqlFunction, SqlParam
from worlds.sql.style_join import KEY, JoinedTable, public
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


def _keys_param(slot: str, name: str, what: str) -> SqlParam:
    return SqlParam(slot=slot, name=name, type="array", items="integer", description=what)


class SelLibrary:
    """The SEL functions of the databases questions use, built per database on first use, uniquely named."""

    def __init__(self) -> None:
        self._by_key: dict[tuple[str, str], SqlFunction] = {}
        self._names: set[str] = set()
        self._done: set[str] = set()
        self._joins: dict[str, tuple[str, str]] = {}
        """Function name -> (db_id, joined table's source key), for the functions of joined tables."""

    def functions(self, joins: set[tuple[str, str]] | None = None) -> list[SqlFunction]:
        """Every function; with ``joins``, a joined table's functions only where (db_id, source) is in it."""
        return [
            f
            for f in self._by_key.values()
            if joins is None or f.name not in self._joins or self._joins[f.name] in joins
        ]

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
                source = _Source(table_key, f"table {column.table}", column.table, identifier_word(column.table),
                                 _quote(column.table), "rowid")  # fmt: skip
                self._add_column(db.db_id, source, column_key, column.name, column)

    def add_join(self, db: Database, join: JoinedTable) -> str:
        """The functions of a joined table (the initialisation step's output) on first use; its source key.
        Its rows' keys number them in the order of the tables' rowids (``JoinedTable.sql``)."""
        key = f"join:{join.name.lower()}"
        if (db.db_id, f"list:{key}") in self._by_key:
            return key
        word = identifier_word("_".join(join.tables))
        source = _Source(key, f"the joined table {join.name}", join.name, word, f"({join.sql(key=True)})", KEY)
        on = "; ".join(" and ".join(f"{a} = {b}" for a, b in edge.on) for edge in join.edges)
        summary = (
            f"Lists the key of every row of the joined table {join.name} ({db.db_id} database): rows of "
            f"{', '.join(join.tables)} matched on {on}. {_KEYS_OUT}"
        )
        sql = f"SELECT {KEY} FROM {source.sql} ORDER BY {KEY}"
        self._add(db.db_id, f"list:{key}", f"list_{word}_keys", SqlFunction(
            name="", db_id=db.db_id, sql=sql, summary=summary), join=key)  # fmt: skip
        for table, name in join.sources:
            column = db.schema[table.lower()][name.lower()]
            self._add_column(db.db_id, source, public(table, name).lower(), public(table, name), column)
        return key

    def _add_column(self, db_id: str, source: _Source, column_key: str, name: str, column: Column) -> None:
        """Selectors and the getter of one column (``name`` as the source spells it; ``column`` its type)."""
        table, word, cword, where = source.name, source.word, identifier_word(name), f"{column.table}.{column.name}"
        join = source.key if source.key.startswith("join:") else None
        numeric = is_numeric(column)
        json_type = ("integer" if "INT" in column.declared_type.upper() else "number") if numeric else "string"
        for op, suffix in _OPS.items():
            if op != "=" and not numeric:
                continue
            value = SqlParam(slot="p0", name="value", type=json_type,
                             description=f"Value {where} must be {_OP_WORDS[op]}.", column=where)  # fmt: skip
            sql = f"SELECT {source.row} AS key FROM {source.sql} WHERE {_quote(name)} {op} :p0 ORDER BY {source.row}"
            summary = (
                f"Selects the rows of {source.what} ({db_id} database) whose {name} is "
                f"{_OP_WORDS[op]} ⟨p0⟩. {_KEYS_OUT}"
            )
            self._add(db_id, f"select:{source.key}:{column_key}:{op}", f"select_{word}_by_{cword}{suffix}",
                      SqlFunction(name="", db_id=db_id, sql=sql, params=[value], summary=summary), join)  # fmt: skip
        keys = _keys_param("p0", "keys", f"Keys of {table} rows (from a select_/list_ tool).")
        sql = (
            f"SELECT {source.row} AS key, {_quote(name)} FROM {source.sql} "
            f"WHERE {source.row} IN (SELECT value FROM json_each(:p0)) ORDER BY {source.row}"
        )
        summary = (
            f"Gets {name} of the {table} rows ({db_id} database) whose keys are in ⟨p0⟩. "
            f"Returns records {{key, {name}}} in key order."
        )
        self._add(db_id, f"get:{source.key}:{column_key}", f"get_{word}_{cword}",
                  SqlFunction(name="", db_id=db_id, sql=sql, params=[keys], summary=summary), join)  # fmt: skip

    def _add(self, db_id: str, key: str, stem: str, function: SqlFunction, join: str | None = None) -> None:
        name, n = stem[:MAX_NAME].rstrip("_"), 2
        base = name
        while name in self._names:
            name, n = f"{base}_{n}", n + 1
        self._names.add(name)
        self._by_key[(db_id, key)] = function.model_copy(update={"name": name})
        if join is not None:
            self._joins[name] = (db_id, join)


@dataclass(frozen=True)
class _Source:
    """What a column's functions read: a table (rows keyed by rowid) or a joined table (keyed by ``KEY``)."""

    key: str
    """The library's key of the source: the table's lower-case name, or ``join:<tables>``."""
    what: str
    name: str
    word: str
    sql: str
    """The FROM operand: a quoted table, or the joined table's SELECT in parentheses."""
    row: str
    """The expression of a row's key."""


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
    for unsupported, present in (("having", shape.having), ("hidden_aggregate", shape.aggregate_hidden)):
        if present:
            raise GenerateError(f"sel:{unsupported}", "the SEL tools cannot express it")
    table_key = shape.table.lower() if shape.join is None else library.add_join(db, shape.join)
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
        column = _column(db, shape, condition.column)
        if condition.op not in _OPS:
            raise GenerateError("sel:operator", f"no SEL selector for '{condition.op}'")
        if condition.op != "=" and not is_numeric(column):
            raise GenerateError("sel:comparison_on_text", f"{column.table}.{column.name} {condition.op}")
        value = _typed(condition.value, column)
        selected = _keys(
            run(f"select:{table_key}:{condition.column.lower()}:{condition.op}", {"value": value}, "support")
        )
        keys = selected if n == 0 else _keys(run("intersect", {"first": keys, "second": selected}, "support"))
    if shape.aggregate is not None:
        rows = run("count", {"keys": keys}, "core").rows
    else:
        got = [run(f"get:{table_key}:{c.lower()}", {"keys": keys}, "core") for c in shape.columns]
        rows = tuple(zip(*([row[1] for row in result.rows] for result in got), strict=True))
    if not results_equal(expected, QueryResult(columns=expected.columns, rows=rows), ordered=False):
        raise GenerateError("sel:mismatch", "the SEL chain returns other rows than the SQL")
    return calls


def _column(db: Database, shape: Shape, name: str) -> Column:
    """The database column a shape's column name is (``table.column`` when the shape joins tables)."""
    table, column = (shape.table, name) if shape.join is None else name.split(".", 1)
    return db.schema[table.lower()][column.lower()]


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
