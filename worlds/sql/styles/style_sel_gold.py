"""SEL gold chains: selectors, intersections, a sort, then getters, a count or an aggregate over values.

Derived from a question's shape and kept only if running the chain reproduces the SQL's own result. The rows
of an answer are read off the calls as an agent reads them: getters' values joined by key, in the sort's key
order when the question orders its rows.
"""

from __future__ import annotations

from typing import Any

from sim.core import GoldCall
from worlds.sql.engine.execute import Column, QueryError, QueryResult, results_equal
from worlds.sql.query.literals import GenerateError
from worlds.sql.query.verify import Database, run_function
from worlds.sql.styles.style_sel import SELECTOR_OPS, SelLibrary, is_numeric
from worlds.sql.styles.style_shape import ORDER_BY_AGGREGATE, Shape

ALL = -1
"""The sort tools' ``limit`` that keeps every key."""


def sel_chain(shape: Shape, db: Database, library: SelLibrary, expected: QueryResult) -> list[GoldCall]:
    """The verified SEL gold chain of a question of this shape; raises GenerateError when there is none."""
    _check(shape)
    source = shape.table.lower() if shape.join is None else library.add_join(db, shape.join)
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
        keys = _keys(run(f"list:{source}", {}, "support"))
    for n, condition in enumerate(shape.conditions):
        column = _column(db, shape, condition.column)
        if condition.op not in SELECTOR_OPS:
            raise GenerateError("sel:operator", f"no SEL selector for '{condition.op}'")
        if condition.op != "=" and not is_numeric(column):
            raise GenerateError("sel:comparison_on_text", f"{column.table}.{column.name} {condition.op}")
        value = _typed(condition.value, column)
        selected = _keys(run(f"select:{source}:{condition.column.lower()}:{condition.op}", {"value": value}, "support"))
        keys = selected if n == 0 else _keys(run("intersect", {"first": keys, "second": selected}, "support"))
    if shape.order is not None:
        column_key, descending = shape.order[0].lower(), shape.order[1]
        limit = shape.limit if shape.limit is not None else ALL
        sort = f"sort:{source}:{column_key}:{'desc' if descending else 'asc'}"
        keys = _keys(run(sort, {"keys": keys, "limit": limit}, "support"))
    rows = _rows(shape, source, keys, run)
    if not results_equal(expected, QueryResult(columns=expected.columns, rows=rows), ordered=shape.order is not None):
        raise GenerateError("sel:mismatch", "the SEL chain returns other rows than the SQL")
    return calls


def _check(shape: Shape) -> None:
    """The shapes the SEL tools cannot express: named by what is missing."""
    aggregate = shape.aggregate
    if shape.having or shape.aggregate_hidden:
        raise GenerateError("sel:group_filter_or_order", "HAVING, or ORDER BY an aggregate, per group")
    if shape.order is not None and (aggregate is not None or shape.order[0] == ORDER_BY_AGGREGATE):
        raise GenerateError("sel:order_by_aggregate", "ORDER BY beside an aggregate")
    if shape.distinct and (aggregate is not None or len(shape.columns) != 1):
        raise GenerateError("sel:distinct_several", "DISTINCT over several columns")
    if shape.group_by:
        if len(shape.group_by) != 1 or aggregate is None or (aggregate.function, aggregate.column) != ("count", "*"):
            raise GenerateError("sel:group_by", "only COUNT(*) per value of one column has a SEL tool")
    elif aggregate is not None and aggregate.column == "*" and aggregate.function != "count":
        raise GenerateError("sel:aggregate", f"{aggregate.function}(*)")
    if aggregate is not None and aggregate.distinct and aggregate.function != "count":
        raise GenerateError("sel:aggregate_distinct", f"{aggregate.function}(DISTINCT ...)")


def _rows(shape: Shape, source: str, keys: list[int], run: Any) -> tuple[tuple[Any, ...], ...]:
    """The answer's rows as the chain's last calls give them."""
    aggregate = shape.aggregate
    if aggregate is not None and shape.group_by:
        counted = run(f"count_per:{source}:{shape.group_by[0].lower()}", {"keys": keys}, "core").rows
        return tuple((row[1], row[0]) if shape.aggregate_first else (row[0], row[1]) for row in counted)
    if aggregate is not None and aggregate.column == "*":
        return tuple(run("count", {"keys": keys}, "core").rows)
    if aggregate is not None or shape.distinct:
        column = aggregate.column if aggregate is not None else shape.columns[0]
        values = [row[1] for row in run(f"get:{source}:{column.lower()}", {"keys": keys}, "support").rows]
        function = "distinct" if aggregate is None else aggregate.function
        if aggregate is not None and aggregate.distinct:
            function = "count_distinct"
        return tuple(run(f"values:{function}", {"values": values}, "core").rows)
    got = [run(f"get:{source}:{c.lower()}", {"keys": keys}, "core") for c in shape.columns]
    by_key = [{row[0]: row[1] for row in result.rows} for result in got]
    return tuple(tuple(values[key] for values in by_key) for key in keys)


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
