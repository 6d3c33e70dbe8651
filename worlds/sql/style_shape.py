"""The query shapes the SEL and SLOT styles can express, read off the parsed SQL.

A shape is one SELECT over one table: a conjunction of column-vs-literal comparisons, plain columns or one
aggregate, an optional GROUP BY, DISTINCT, ORDER BY one column (or the projected aggregate) with a LIMIT. Anything
else raises ``GenerateError`` with a reason, so the question is rejected rather than kept with a wrong chain.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from sqlglot import exp

from worlds.sql.literals import COMPARISONS, GenerateError, Schema

AGGREGATES: dict[type[exp.Expr], str] = {
    exp.Count: "count",
    exp.Sum: "sum",
    exp.Avg: "avg",
    exp.Min: "min",
    exp.Max: "max",
}


@dataclass(frozen=True)
class Condition:
    column: str
    op: str
    value: Any


@dataclass(frozen=True)
class Aggregate:
    function: str
    column: str
    """A column name, or ``*`` for COUNT(*)."""


@dataclass(frozen=True)
class Shape:
    table: str
    """The table's name as the database spells it."""
    conditions: list[Condition] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    """Projected plain columns, in order (every column for ``*``)."""
    aggregate: Aggregate | None = None
    aggregate_first: bool = False
    """The aggregate is projected before the plain (group) columns."""
    group_by: list[str] = field(default_factory=list)
    distinct: bool = False
    order: tuple[str, bool] | None = None
    """(column, descending); the column is ``<aggregate>`` when ordering by the projected aggregate."""
    limit: int | None = None


ORDER_BY_AGGREGATE = "<aggregate>"


def _fail(reason: str, detail: str) -> GenerateError:
    return GenerateError(f"shape:{reason}", detail)


def read_shape(tree: exp.Expr, schema: Schema) -> Shape:
    """The shape of a canonical query tree (``literals.parse``); raises GenerateError when it has none."""
    if not isinstance(tree, exp.Select):
        raise _fail("set_operation", type(tree).__name__)
    if tree.args.get("joins"):
        raise _fail("join", "more than one table")
    if tree.args.get("with_") or any(
        isinstance(n, exp.Subquery | exp.Select) for n in tree.find_all(exp.Query) if n is not tree
    ):
        raise _fail("subquery", "a nested query")
    if tree.args.get("having"):
        raise _fail("having", "a HAVING clause")
    source = tree.args.get("from_")
    table_node = source.this if source is not None else None
    if not isinstance(table_node, exp.Table) or table_node.name.lower() not in schema:
        raise _fail("no_table", "the FROM is not a table of the schema")
    columns = schema[table_node.name.lower()]
    table = next(iter(columns.values())).table if columns else table_node.name

    def column_name(node: exp.Expr) -> str:
        if not isinstance(node, exp.Column) or node.name.lower() not in columns:
            raise _fail("not_a_column", node.sql(dialect="sqlite")[:80])
        return columns[node.name.lower()].name

    conditions = _conditions(tree.args.get("where"), column_name)
    plain: list[str] = []
    aggregate: Aggregate | None = None
    aggregate_first = False
    for projection in tree.expressions:
        if isinstance(projection, exp.Alias):
            projection = projection.this
        if isinstance(projection, exp.Star):
            plain.extend(c.name for c in columns.values())
        elif isinstance(projection, exp.Column):
            plain.append(column_name(projection))
        elif type(projection) in AGGREGATES:
            if aggregate is not None:
                raise _fail("several_aggregates", "more than one aggregate")
            aggregate = _aggregate(projection, column_name)
            aggregate_first = not plain
        else:
            raise _fail("expression", projection.sql(dialect="sqlite")[:80])
    group = [column_name(g) for g in (tree.args.get("group") or exp.Group()).expressions]
    if aggregate is not None and plain and sorted(plain) != sorted(group):
        raise _fail("ungrouped_columns", "plain columns beside an aggregate that are not the GROUP BY")
    if group and aggregate is None:
        raise _fail("group_without_aggregate", "GROUP BY without an aggregate")
    return Shape(
        table=table,
        conditions=conditions,
        columns=plain,
        aggregate=aggregate,
        aggregate_first=aggregate_first,
        group_by=group,
        distinct=bool(tree.args.get("distinct")),
        order=_order(tree, aggregate, column_name),
        limit=_limit(tree),
    )


def _conditions(where: exp.Expr | None, column_name: Any) -> list[Condition]:
    if where is None:
        return []
    found: list[Condition] = []
    pending: list[exp.Expr] = [where.this]
    while pending:
        node = pending.pop(0)
        if isinstance(node, exp.Paren):
            pending.insert(0, node.this)
        elif isinstance(node, exp.And):
            pending[:0] = [node.this, node.expression]
        elif isinstance(node, exp.Between):
            name = column_name(node.this)
            found += [Condition(name, ">=", _value(node.args["low"])), Condition(name, "<=", _value(node.args["high"]))]
        elif type(node) in COMPARISONS:
            op = COMPARISONS[type(node)]
            left, right = node.this, node.expression
            if isinstance(right, exp.Column) and not isinstance(left, exp.Column):
                left, right = right, left
                op = {">": "<", ">=": "<=", "<": ">", "<=": ">="}.get(op, op)
            found.append(Condition(column_name(left), op, _value(right)))
        else:
            raise _fail("condition", f"{type(node).__name__}: {node.sql(dialect='sqlite')[:80]}")
    return found


def _value(node: exp.Expr) -> Any:
    negative = isinstance(node, exp.Neg)
    literal = node.this if negative else node
    if not isinstance(literal, exp.Literal):
        raise _fail("not_a_literal", node.sql(dialect="sqlite")[:80])
    if literal.is_string:
        if negative:
            raise _fail("not_a_literal", node.sql(dialect="sqlite")[:80])
        return literal.this
    number = Decimal(str(literal.this))
    value: int | float = (
        int(number) if number == number.to_integral_value() and "." not in literal.this else float(number)
    )
    return -value if negative else value


def _aggregate(node: exp.Expr, column_name: Any) -> Aggregate:
    inner = node.this
    if isinstance(inner, exp.Distinct):
        raise _fail("aggregate_distinct", node.sql(dialect="sqlite")[:80])
    function = AGGREGATES[type(node)]
    if isinstance(inner, exp.Star) and function == "count":
        return Aggregate(function, "*")
    return Aggregate(function, column_name(inner))


def _order(tree: exp.Select, aggregate: Aggregate | None, column_name: Any) -> tuple[str, bool] | None:
    order = tree.args.get("order")
    if order is None:
        return None
    if len(order.expressions) != 1:
        raise _fail("order_by_several", order.sql(dialect="sqlite")[:80])
    ordered = order.expressions[0]
    key = ordered.this
    descending = bool(ordered.args.get("desc"))
    if type(key) in AGGREGATES:
        if aggregate is None or _aggregate(key, column_name) != aggregate:
            raise _fail("order_by_unprojected_aggregate", key.sql(dialect="sqlite")[:80])
        return ORDER_BY_AGGREGATE, descending
    return column_name(key), descending


def _limit(tree: exp.Select) -> int | None:
    limit = tree.args.get("limit")
    if limit is None:
        return None
    if tree.args.get("order") is None:
        raise _fail("limit_without_order", "LIMIT without ORDER BY picks arbitrary rows")
    value = limit.expression
    if not isinstance(value, exp.Literal) or value.is_string or not str(value.this).isdigit():
        raise _fail("limit", limit.sql(dialect="sqlite")[:80])
    if tree.args.get("offset"):
        raise _fail("offset", "LIMIT with OFFSET")
    return int(value.this)
