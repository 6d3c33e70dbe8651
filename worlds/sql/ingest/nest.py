"""A join question's nested variant: the join rewritten as ``x IN (SELECT y FROM other WHERE ...)``.

Augmentation's way to more questions with two solution paths. The study behind this benchmark keeps only nested
queries (each has an alternative path: the inner query, then the outer fed its result); many join questions ask
the same thing with the condition on the joined table, so ``SELECT T1.name FROM a AS T1 JOIN b AS T2 ON T1.id =
T2.a_id WHERE T2.x = 'v'`` becomes ``SELECT T1.name FROM a AS T1 WHERE T1.id IN (SELECT T2.a_id FROM b AS T2
WHERE T2.x = 'v')``. The rewrite can change the answer (a row of ``a`` that matches two rows of ``b`` appears once,
not twice), so a variant is kept only where its result equals the original query's on the data.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from worlds.sql.query.literals import Schema
from worlds.sql.query.split import has_nested_query
from worlds.sql.styles.style_join import conjuncts, is_column_equality


def nested_variant(tree: exp.Expr, schema: Schema) -> exp.Expr | None:
    """The IN-subquery form of a two-table inner join with conditions on one side, or None where there is none."""
    if not isinstance(tree, exp.Select) or has_nested_query(tree):
        return None
    joins = tree.args.get("joins") or []
    source = tree.args.get("from_")
    if len(joins) != 1 or source is None or not isinstance(source.this, exp.Table):
        return None
    join = joins[0]
    if join.args.get("side") or join.args.get("using") or join.args.get("method"):
        return None
    if (join.args.get("kind") or "").upper() not in ("", "INNER") or not isinstance(join.this, exp.Table):
        return None
    tables = (source.this, join.this)
    names = [{t.alias_or_name.lower(), t.name.lower()} for t in tables]
    if names[0] & names[1]:
        return None  # a self-join: its columns cannot be told apart by table name
    on = conjuncts(join.args.get("on"))
    if len(on) != 1 or not is_column_equality(on[0]):
        return None
    where = tree.args.get("where")
    filters = conjuncts(where.this) if where is not None else []
    for outer in (0, 1):
        inner = 1 - outer
        side = _side_of(tables, names, schema)
        if any(side(c) != outer for c in _columns_outside_where(tree)):
            continue
        sides = [{side(c) for c in node.find_all(exp.Column)} for node in filters]
        if any(len(s) != 1 for s in sides):
            continue
        pair = (on[0].this, on[0].expression)
        if side(pair[0]) == side(pair[1]) or None in (side(pair[0]), side(pair[1])):
            return None
        outer_key, inner_key = (pair[0], pair[1]) if side(pair[0]) == outer else (pair[1], pair[0])
        inner_where = [n.copy() for n, s in zip(filters, sides, strict=True) if s == {inner}]
        outer_where = [n.copy() for n, s in zip(filters, sides, strict=True) if s == {outer}]
        subquery = exp.select(inner_key.copy()).from_(tables[inner].copy())
        if inner_where:  # none: the join only asks that a match exist (a semi-join)
            subquery = subquery.where(exp.and_(*inner_where))
        test = exp.In(this=outer_key.copy(), query=exp.Subquery(this=subquery))
        variant = tree.copy()
        variant.set("joins", None)
        variant.set("from_", exp.From(this=tables[outer].copy()))
        variant.set("where", exp.Where(this=exp.and_(*outer_where, test) if outer_where else test))
        return variant
    return None


def _columns_outside_where(tree: exp.Select) -> list[exp.Column]:
    """Columns the query selects, groups, filters groups or orders by (what the outer query must still have)."""
    found: list[exp.Column] = []
    for key in ("expressions", "group", "having", "order"):
        value = tree.args.get(key)
        for node in value if isinstance(value, list) else [value] if value is not None else []:
            found += list(node.find_all(exp.Column))
    return found


def _side_of(
    tables: tuple[exp.Table, exp.Table], names: list[set[str]], schema: Schema
) -> Callable[[exp.Expr], int | None]:
    """Which of the two tables (0, 1) a column belongs to; None where it is not a column or not one table's."""

    def side(column: exp.Expr) -> int | None:
        if not isinstance(column, exp.Column):
            return None
        if column.table:
            found = [n for n, aliases in enumerate(names) if column.table.lower() in aliases]
        else:
            found = [n for n, t in enumerate(tables) if column.name.lower() in schema.get(t.name.lower(), {})]
        return found[0] if len(found) == 1 else None

    return side
