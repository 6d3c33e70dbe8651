"""The SEL style: per table, condition-bound selectors that return row keys and one getter per column.

Every tool is still a fixed read-only ``SqlFunction`` (so the world, its runtime and its folder are the
per-question ones): ``list_<t>_keys()``, ``select_<t>_by_<c>(value)`` (plus ``_above/_below/_at_least/_at_most``
for numeric columns), ``get_<t>_<c>(keys)``, and per database ``intersect_keys(first, second)`` and
``count_keys(keys)``. A row's key is its SQLite rowid: every table has one, and it is stable in a read-only file.
As the API-styles study binds SLOT's sort and group arguments into tools of their own, each column also has
``sort_<t>_keys_by_<c>[_descending](keys, limit)`` and ``count_<t>_rows_per_<c>(keys)``, and each database the
aggregates over a getter's values (``average_of_values`` ...). A question that joins tables gets the same tools
over its joined table (the initialisation step, ``style_join``), keyed by the joined rows' number. The gold
chains are in ``style_sel_gold``.
"""

from __future__ import annotations

from dataclasses import dataclass

from worlds.sql.engine.execute import Column
from worlds.sql.engine.model import SqlFunction, SqlParam
from worlds.sql.query.literals import column_subject, identifier_word
from worlds.sql.query.prose import humanize
from worlds.sql.query.verify import Database
from worlds.sql.styles.style_join import KEY, JoinedTable, public

MAX_NAME = 60
SELECTOR_OPS = {"=": "", ">": "_above", "<": "_below", ">=": "_at_least", "<=": "_at_most"}
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


def _dotted(public_name: str) -> str:
    """A joined table's ``table.column`` in words: descriptions never print SQL's dotted names."""
    table, _, column = public_name.partition(".")
    return f"{humanize(column)} (of {humanize(table)})"


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
        for function, (stem, sql) in VALUE_FUNCTIONS.items():
            self._add(db.db_id, f"values:{function}", stem, _values(db.db_id, stem, sql))
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
        on = "; ".join(" and ".join(f"{_dotted(a)} equals {_dotted(b)}" for a, b in edge.on) for edge in join.edges)
        summary = (
            f"Lists the key of every row of the joined table {join.name} ({db.db_id} database): rows of "
            f"{', '.join(join.tables)} paired so that {on}. {_KEYS_OUT}"
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
        # A joined table's columns come from several tables: say which one each is.
        subject = _words(column) if join is None else column_subject(column)
        numeric = is_numeric(column)
        json_type = ("integer" if "INT" in column.declared_type.upper() else "number") if numeric else "string"
        for op, suffix in SELECTOR_OPS.items():
            if op != "=" and not numeric:
                continue
            said = f"Value {subject} must be {_OP_WORDS[op]}."
            value = SqlParam(slot="p0", name="value", type=json_type, description=said, column=where)
            sql = f"SELECT {source.row} AS key FROM {source.sql} WHERE {_quote(name)} {op} :p0 ORDER BY {source.row}"
            summary = (
                f"Selects the rows of {source.what} ({db_id} database) whose {subject} is "
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
            f"Gets {subject} of the {table} rows ({db_id} database) whose keys are in ⟨p0⟩. "
            f"Returns records {{`key`, `{name}`}} in key order.{_notes(column)}"
        )
        self._add(db_id, f"get:{source.key}:{column_key}", f"get_{word}_{cword}",
                  SqlFunction(name="", db_id=db_id, sql=sql, params=[keys], summary=summary), join)  # fmt: skip
        self._add_sorts_and_counts(db_id, source, column_key, (name, subject), keys, join)

    def _add_sorts_and_counts(
        self, db_id: str, source: _Source, column_key: str, named: tuple[str, str], keys: SqlParam, join: str | None
    ) -> None:
        """The study's sort tools bound to one column and one direction, and rows counted per value (its group
        tool bound to one column and COUNT). Ties keep key order, so every call answers the same. ``named``: the
        column as the source spells it and in words."""
        name, subject = named
        cword, rows = identifier_word(name), f"JOIN {source.sql} AS s ON s.{source.row} = k.value"
        limit = SqlParam(slot="p1", name="limit", type="integer", description="How many keys to keep (-1: all).")
        for descending, suffix in ((False, ""), (True, "_descending")):
            order = f"s.{_quote(name)}{' DESC' if descending else ''}, s.{source.row}"
            sql = f"SELECT k.value AS key FROM json_each(:p0) AS k {rows} ORDER BY {order} LIMIT :p1"
            summary = (
                f"Orders the keys ⟨p0⟩ of {source.what} rows ({db_id} database) by {subject}, "
                f"{'largest' if descending else 'smallest'} first, keeping the first ⟨p1⟩. {_KEYS_OUT}"
            )
            self._add(db_id, f"sort:{source.key}:{column_key}:{'desc' if descending else 'asc'}",
                      f"sort_{source.word}_keys_by_{cword}{suffix}",
                      SqlFunction(name="", db_id=db_id, sql=sql, params=[keys, limit], summary=summary),
                      join)  # fmt: skip
        sql = (
            f"SELECT s.{_quote(name)} AS {_quote(name)}, COUNT(*) AS count FROM json_each(:p0) AS k {rows} "
            f"GROUP BY s.{_quote(name)} ORDER BY s.{_quote(name)}"
        )
        summary = (
            f"Counts the rows of {source.what} ({db_id} database) with keys in ⟨p0⟩ per value of {subject}. "
            f"Returns records {{`{name}`, `count`}}, one per value."
        )
        self._add(db_id, f"count_per:{source.key}:{column_key}", f"count_{source.word}_rows_per_{cword}",
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


VALUE_FUNCTIONS = {
    "avg": ("average_of_values", "AVG(value) AS average"),
    "sum": ("sum_of_values", "SUM(value) AS sum"),
    "min": ("min_of_values", "MIN(value) AS min"),
    "max": ("max_of_values", "MAX(value) AS max"),
    "count": ("count_values", "COUNT(value) AS count"),
    "count_distinct": ("count_distinct_values", "COUNT(DISTINCT value) AS count"),
    "distinct": ("distinct_values", "DISTINCT value AS value"),
}
"""The study's aggregate and distinct tools over a list of values (what a getter returned): as SQL computes
them, nulls skipped, so a chain of getter then one of these is the query's aggregate."""


def _values(db_id: str, stem: str, pick: str) -> SqlFunction:
    values = SqlParam(slot="p0", name="values", type="array", items="any", description="Values a get_ tool returned.")
    what = stem.replace("_", " ").replace(" of values", "")
    return SqlFunction(
        name="",
        db_id=db_id,
        sql=f"SELECT {pick} FROM json_each(:p0)",
        params=[values],
        summary=f"The {what} of ⟨p0⟩ (null values skipped), for values of the {db_id} database.",
    )


def _count(db_id: str) -> SqlFunction:
    return SqlFunction(
        name="",
        db_id=db_id,
        sql="SELECT COUNT(*) AS count FROM json_each(:p0)",
        params=[_keys_param("p0", "keys", "The keys to count.")],
        summary=f"How many keys ⟨p0⟩ holds (rows of the {db_id} database). Returns [{{count}}].",
    )
