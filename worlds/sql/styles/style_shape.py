"""The query shapes the SEL and SLOT styles can express, read off the parsed SQL.

A shape is one SELECT over one table, or over the one table its joins make (``style_join``): a conjunction of
column-vs-literal comparisons, plain columns or one aggregate (projected, or used only by HAVING / ORDER BY), an
optional GROUP BY with HAVING conditions on the aggregate, DISTINCT, ORDER BY one column (or the aggregate) with a
LIMIT. Anything else raises ``GenerateError`` with a reason, so the question is rejected rather than kept with a
wrong chain.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from sqlglot import exp

from worlds.sql.query.literals import COMPARISONS, GenerateError, Schema
from worlds.sql.styles.style_join import JoinedTable, read_join

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
    distinct: bool = False
    """Over the column's distinct values (``COUNT(DISTINCT x)``)."""


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
    aggregate_hidden: bool = False
    """The aggregate is not projected: only HAVING or ORDER BY use it, or a GROUP BY alone (then ``COUNT(*)``,
    which makes one row per group as the GROUP BY does)."""
    having: list[Condition] = field(default_factory=list)
    """Conditions on the aggregate per group (their column is ``<aggregate>``)."""
    group_by: list[str] = field(default_factory=list)
    group_extended: bool = False
    """The GROUP BY was extended with the plain columns the query selects beside it (``SELECT name ... GROUP BY
    id``): right where they depend on its key, which only running the chain shows."""
    distinct: bool = False
    order: tuple[str, bool] | None = None
    """(column, descending); the column is ``<aggregate>`` when ordering by the projected aggregate."""
    limit: int | None = None
    join: JoinedTable | None = None
    """The initialisation step when the query joins tables: then ``table`` is the first table, and every column
    is a column of the joined table (``table.column``)."""


ORDER_BY_AGGREGATE = "<aggregate>"


def _fail(reason: str, detail: str) -> GenerateError:
    return GenerateError(f"shape:{reason}", detail)


def read_shape(tree: exp.Expr, schema: Schema) -> Shape:
    """The shape of a canonical query tree (``literals.parse``); raises GenerateError when it has none."""
    if not isinstance(tree, exp.Select):
        raise _fail("set_operation", type(tree).__name__)
    if tree.args.get("with_") or any(
        isinstance(n, exp.Subquery | exp.Select) for n in tree.find_all(exp.Query) if n is not tree
    ):
        raise _fail("subquery", "a nested query")
    where = tree.args.get("where")
    conjuncts = [where.this] if where is not None else []
    join: JoinedTable | None = None
    if tree.args.get("joins"):
        join, column_name, conjuncts = read_join(tree, schema, _flat(conjuncts))
        table, every_column = join.first, list(join.columns)
    else:
        table, every_column, column_name = _one_table(tree, schema)
    conditions = _conditions(conjuncts, column_name)
    plain: list[str] = []
    aggregate: Aggregate | None = None
    aggregate_first = False
    for projection in tree.expressions:
        if isinstance(projection, exp.Alias):
            projection = projection.this
        if isinstance(projection, exp.Star):
            plain.extend(every_column)
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
    hidden = aggregate is None and bool(group)
    if hidden:  # the aggregate HAVING or ORDER BY names, else a count: one row per group either way
        aggregate = _hidden_aggregate(tree, column_name) or Aggregate("count", "*")
    ungrouped = [c for c in plain if c not in group] if aggregate is not None else []
    if ungrouped and not group:
        raise _fail("ungrouped_columns", "plain columns beside an aggregate with no GROUP BY")
    group += list(dict.fromkeys(ungrouped))  # SQLite takes them from any row of the group: the same one if they
    # depend on the group's key (a name beside its id), which the chain's verification shows on the data
    having = _having(tree, aggregate, column_name)
    return Shape(
        table=table,
        conditions=conditions,
        columns=plain,
        aggregate=aggregate,
        aggregate_first=aggregate_first,
        aggregate_hidden=hidden,
        having=having,
        group_by=group,
        group_extended=bool(ungrouped),
        distinct=bool(tree.args.get("distinct")),
        order=_order(tree, aggregate, column_name),
        limit=_limit(tree),
        join=join,
    )


def _one_table(tree: exp.Select, schema: Schema) -> tuple[str, list[str], Callable[[exp.Expr], str]]:
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

    return table, [c.name for c in columns.values()], column_name


def _flat(nodes: list[exp.Expr]) -> list[exp.Expr]:
    """The top-level AND conjuncts of the WHERE (parentheses around them dropped)."""
    flat: list[exp.Expr] = []
    for node in nodes:
        while isinstance(node, exp.Paren):
            node = node.this
        flat += _flat([node.this, node.expression]) if isinstance(node, exp.And) else [node]
    return flat


def _conditions(conjuncts: list[exp.Expr], column_name: Any) -> list[Condition]:
    found: list[Condition] = []
    pending: list[exp.Expr] = list(conjuncts)
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
    function = AGGREGATES[type(node)]
    if isinstance(inner, exp.Distinct):
        if len(inner.expressions) != 1:
            raise _fail("aggregate_distinct", node.sql(dialect="sqlite")[:80])
        return Aggregate(function, column_name(inner.expressions[0]), distinct=True)
    if isinstance(inner, exp.Star) and function == "count":
        return Aggregate(function, "*")
    return Aggregate(function, column_name(inner))


def _hidden_aggregate(tree: exp.Select, column_name: Any) -> Aggregate | None:
    """The one aggregate HAVING and ORDER BY use when none is projected (None: they use none)."""
    found = {
        _aggregate(node, column_name)
        for clause in (tree.args.get("having"), tree.args.get("order"))
        if clause is not None
        for node in clause.find_all(*AGGREGATES)
    }
    if len(found) > 1:
        raise _fail("several_aggregates", "HAVING and ORDER BY use different aggregates")
    return next(iter(found), None)


def _having(tree: exp.Select, aggregate: Aggregate | None, column_name: Any) -> list[Condition]:
    """HAVING as conditions on the (one) aggregate: ``COUNT(*) > 2`` and its conjunctions."""
    having = tree.args.get("having")
    if having is None:
        return []
    if aggregate is None or not tree.args.get("group"):
        raise _fail("having", "HAVING without GROUP BY")
    found: list[Condition] = []
    pending: list[exp.Expr] = [having.this]
    while pending:
        node = pending.pop(0)
        if isinstance(node, exp.Paren):
            pending.insert(0, node.this)
        elif isinstance(node, exp.And):
            pending[:0] = [node.this, node.expression]
        elif type(node) in COMPARISONS and type(node.this) in AGGREGATES:
            if _aggregate(node.this, column_name) != aggregate:
                raise _fail("having", f"another aggregate: {node.sql(dialect='sqlite')[:80]}")
            found.append(Condition(ORDER_BY_AGGREGATE, COMPARISONS[type(node)], _value(node.expression)))
        else:
            raise _fail("having", node.sql(dialect="sqlite")[:80])
    return found


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
