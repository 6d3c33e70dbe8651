"""From a parameterised query tree to a named, described ``SqlFunction``; the library that shares them.

Two questions whose queries differ only in their literals share one function: the library keys functions by
database, SQL template and argument signature, so a world is a set of reusable lookups, not one tool per question.
"""

from __future__ import annotations

import re

from sqlglot import exp

from worlds.sql.engine.model import SqlFunction, SqlParam
from worlds.sql.query.literals import LiteralSlot, Schema, identifier_word, resolve_column
from worlds.sql.query.prose import PlainNamer, Prose, humanize

MAX_NAME = 60
_SLOT = re.compile(r":(p\d+|pl)\b")


def render(tree: exp.Expr) -> str:
    return tree.sql(dialect="sqlite")


def build_function(
    tree: exp.Expr, db_id: str, literals: list[LiteralSlot], extra: SqlParam | None = None, schema: Schema | None = None
) -> SqlFunction:
    """A function running ``tree`` (its literal placeholders become arguments; ``extra`` is the list or value
    input of an outer query), described in words from ``schema``'s names. Named provisionally: the library gives
    the final name."""
    sql = render(tree)
    by_slot = {lit.slot: lit for lit in literals}
    params: list[SqlParam] = []
    used: set[str] = set()
    for slot in dict.fromkeys(_SLOT.findall(sql)):
        if extra is not None and slot == extra.slot:
            param = extra
        else:
            lit = by_slot[slot]
            column = f"{lit.column.table}.{lit.column.name}" if lit.column else None
            param = SqlParam(
                slot=slot,
                name=lit.base_name,
                type=lit.json_type,
                description=lit.description,
                column=column,
                contains=lit.contains,
                swappable=lit.swappable,
            )
        params.append(param.model_copy(update={"name": _unique(param.name, used)}))
    summary = describe_tree(tree, db_id, schema or {})
    ordered = bool(tree.args.get("order"))
    like_escape = any(p.contains for p in params)  # literals.parametrise put ESCAPE on their LIKE
    return SqlFunction(
        name=_name(tree, params), db_id=db_id, sql=sql, params=params, summary=summary, ordered=ordered,
        like_escape=like_escape,
    )  # fmt: skip


def _unique(name: str, used: set[str]) -> str:
    candidate, n = name, 2
    while candidate in used:
        candidate, n = f"{name}_{n}", n + 1
    used.add(candidate)
    return candidate


def outputs(tree: exp.Expr) -> list[str]:
    """What the query returns, as readable names."""
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    if select is None:
        return []
    names: list[str] = []
    for projection in select.expressions:
        if isinstance(projection, exp.Star):
            names.append("all columns")
        elif isinstance(projection, exp.Column | exp.Alias):
            names.append(projection.alias_or_name)
        else:
            names.append(projection.sql(dialect="sqlite"))
    return names


def _tables(tree: exp.Expr) -> list[str]:
    return list(dict.fromkeys(table.name for table in tree.find_all(exp.Table) if table.name.lower() != "json_each"))


def describe_tree(tree: exp.Expr, db_id: str, schema: Schema) -> str:
    """What the query returns, in words (never its SQL), with the database's own notes on the returned columns."""
    text = Prose(PlainNamer(schema)).sentence(tree)
    notes = []
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    for projection in select.expressions if select is not None else []:
        node = projection.this if isinstance(projection, exp.Alias) else projection
        column = resolve_column(node, schema) if isinstance(node, exp.Column) else None
        if column is not None and column.description:
            notes.append(f"{column.label or humanize(column.name)}: {column.description}")
    about = f" Returned fields: {'; '.join(dict.fromkeys(notes))}." if notes else ""
    return f"{text}{about} Data: the {db_id} database; the result is a list of JSON records, one per row."


def _name(tree: exp.Expr, params: list[SqlParam]) -> str:
    names = outputs(tree)
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    first = select.expressions[0] if select is not None and select.expressions else None
    tables = _tables(tree)
    table = identifier_word(tables[0]) if tables else "rows"
    if isinstance(first, exp.Count) and len(names) == 1:
        stem = f"count_{table}"
    else:
        stem = f"get_{table}_" + "_and_".join(identifier_word(n) for n in names[:2])
    if params:
        stem += "_by_" + "_".join(p.name for p in params[:2])
    return stem[:MAX_NAME].rstrip("_")


class FunctionLibrary:
    """Every function of one world, named uniquely, in the order first added."""

    def __init__(self) -> None:
        self._by_key: dict[tuple[str, str, tuple[tuple[str, str], ...]], SqlFunction] = {}
        self._names: set[str] = set()

    def add(self, function: SqlFunction) -> SqlFunction:
        """The library's copy of ``function``: an existing one with the same query, or this one, uniquely named."""
        key = (function.db_id, function.sql, tuple((p.name, p.type) for p in function.params))
        existing = self._by_key.get(key)
        if existing is not None:
            return existing
        named = function.model_copy(update={"name": _unique(function.name, self._names)})
        self._by_key[key] = named
        return named

    def functions(self) -> list[SqlFunction]:
        return list(self._by_key.values())
