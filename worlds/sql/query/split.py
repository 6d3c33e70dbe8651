"""A nested query split in two: the inner query, and the outer query that takes the inner's result as input.

Supported shapes (the first found, outermost first):

- ``A INTERSECT|EXCEPT|UNION B`` at the top: inner ``B``; outer ``A <op> SELECT ... FROM json_each(:pl)``.
- ``x [NOT] IN (SELECT ...)``: inner the subquery; outer ``x [NOT] IN (SELECT value FROM json_each(:pl))``.
- ``x <cmp> (SELECT ...)`` or ``x BETWEEN (SELECT ...) AND ...`` (a scalar subquery): inner the subquery; outer
  ``x <cmp> :pl`` taking one value (a comparison takes one value, and the agent passes what the inner query
  returned, not a one-item list).

The list goes in through ``json_each`` of a JSON array bound as one parameter: a read-only connection refuses
even a TEMP table. Anything else (a derived table in FROM, EXISTS, a subquery in the SELECT list) is reported.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

import sqlglot
from sqlglot import exp

from worlds.sql.engine.execute import QueryResult, json_value, record_keys
from worlds.sql.engine.model import SqlParam
from worlds.sql.query.literals import (
    COMPARISONS,
    Schema,
    column_subject,
    comparison_words,
    identifier_word,
    resolve_column,
)
from worlds.sql.query.prose import PlainNamer, Prose

LIST_SLOT = "pl"
SplitKind = Literal["set", "in", "scalar"]


@dataclass(frozen=True)
class SplitPoint:
    """Where a template tree splits; ``inner`` is a standalone copy of the nested query."""

    kind: SplitKind
    inner: exp.Expr
    node: exp.Expr
    """The node the outer query replaces: the right side of a set operation, or the subquery."""


def has_nested_query(tree: exp.Expr) -> bool:
    return tree.find(exp.Subquery) is not None or tree.find(exp.SetOperation) is not None


def find_split(tree: exp.Expr) -> SplitPoint | str:
    """The split point, or a reason there is none."""
    if isinstance(tree, exp.SetOperation):
        right = tree.expression
        return SplitPoint("set", right.copy(), right)
    reasons: list[str] = []
    for sub in tree.find_all(exp.Subquery, bfs=True):
        parent = sub.parent
        if isinstance(parent, exp.In) and sub.arg_key == "query":
            return SplitPoint("in", sub.this.copy(), sub)
        if isinstance(parent, (*COMPARISONS, exp.Between)):
            return SplitPoint("scalar", sub.this.copy(), sub)
        if isinstance(parent, exp.Exists):
            reasons.append("exists_subquery")
        elif sub.find_ancestor(exp.From, exp.Join) is not None:
            reasons.append("derived_table")
        else:
            reasons.append(f"subquery_in_{type(parent).__name__.lower()}")
    if tree.find(exp.SetOperation) is not None and not reasons:
        reasons.append("nested_set_operation")
    return reasons[0] if reasons else "no_subquery"


def list_argument(point: SplitPoint, inner: QueryResult) -> Any:
    """What the outer query takes from the inner's result: a value, values, or records."""
    if point.kind == "scalar":
        return json_value(inner.rows[0][0])
    if len(inner.columns) == 1:
        return inner.values()
    return inner.records()


def outer_tree(tree: exp.Expr, point: SplitPoint, inner: QueryResult) -> exp.Expr:
    """A copy of ``tree`` with the nested query replaced by the input placeholder ``:pl``."""
    outer = tree.copy()
    target = _same_node(tree, outer, point.node)
    if point.kind == "scalar":
        target.replace(exp.Placeholder(this=LIST_SLOT))
        return outer
    if len(inner.columns) == 1 or point.kind == "in":
        source = f"SELECT value FROM json_each(:{LIST_SLOT})"
    else:
        keys = record_keys(inner.columns)
        picks = ", ".join(f"json_extract(value, '$.{json.dumps(key)}')" for key in keys)
        source = f"SELECT {picks} FROM json_each(:{LIST_SLOT})"
    replacement = sqlglot.parse_one(source, read="sqlite")
    target.replace(replacement if point.kind == "set" else exp.Subquery(this=replacement))
    return outer


def _same_node(original: exp.Expr, copy: exp.Expr, node: exp.Expr) -> exp.Expr:
    """The node of ``copy`` at the place ``node`` has in ``original`` (copies keep the walk order)."""
    for a, b in zip(original.walk(), copy.walk(), strict=True):
        if a is node:
            return b
    raise ValueError("split node not in its tree")


def list_param(point: SplitPoint, inner: QueryResult, schema: Schema, inner_what: str) -> SqlParam:
    """The outer query's input argument, named and described from what it is compared with."""
    if point.kind == "set":
        op = type(point.node.parent).__name__.lower()  # intersect, except or union
        what = identifier_word(inner.columns[0]) if inner.columns else "row"
        effect = {
            "intersect": "only rows also in this list are returned",
            "except": "rows in this list are left out",
            "union": "these rows are added to the result",
        }[op]
        many = len(inner.columns) > 1
        shape = f"records with keys {', '.join(record_keys(inner.columns))}" if many else "values"
        return SqlParam(
            slot=LIST_SLOT,
            name=f"{what}_list" if not many else "rows",
            type="array",
            items="object" if many else _items(inner),
            description=f"A list of {shape} ({inner_what}, as another function returns them): {effect}.",
        )
    parent = point.node.parent
    assert parent is not None
    other = parent.this
    column = resolve_column(other, schema) if isinstance(other, exp.Column) else None
    base = identifier_word(column.name if column else other.alias_or_name or "value")
    subject = column_subject(column) if column else Prose(PlainNamer(schema)).expression(other, None)
    if point.kind == "in":
        negated = isinstance(parent.parent, exp.Not)
        verb = "is not" if negated else "is"
        return SqlParam(
            slot=LIST_SLOT,
            name=f"{'excluded_' if negated else ''}{base}_list",
            type="array",
            items=_items(inner),
            description=f"Values ({inner_what}, as another function returns them); keeps rows whose {subject} "
            f"{verb} one of them.",
        )
    if isinstance(parent, exp.Between):
        low = parent.args.get("low") is point.node
        prefix, phrase = ("min_", "at least") if low else ("max_", "at most")
    else:
        prefix, phrase = comparison_words(parent, point.node)
    value = inner.rows[0][0] if inner.rows else None
    json_type = "string" if isinstance(value, str) else "integer" if isinstance(value, int) else "number"
    return SqlParam(
        slot=LIST_SLOT,
        name=f"{prefix}{base}",
        type=json_type,
        description=f"A value ({inner_what}, as another function returns it); keeps rows whose {subject} is {phrase} "
        "it.",
    )


def _items(inner: QueryResult) -> Literal["string", "integer", "number", "any"]:
    if any(row[0] is None for row in inner.rows):
        return "any"  # a null item would fail a typed schema
    kinds = {type(row[0]) for row in inner.rows}
    if kinds == {str}:
        return "string"
    if kinds == {int}:
        return "integer"
    if kinds <= {int, float} and kinds:
        return "number"
    return "any"
