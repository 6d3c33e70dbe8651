"""The initialisation step of the SLOT and SEL styles: the tables a query joins, made one table.

The API-styles study (SLOT-/SEL-BIRD) does not ask the agent to join: "the joins in the SQL query are
collectively performed by an initialization step", whose output is a single table the agent's calls start from.
A ``JoinedTable`` is that step: the query's tables, in FROM order, each joined on column equalities (its ``ON``,
or the ``WHERE`` equalities of a comma join). Its columns are named ``table.column``, so two tables' ``id`` stay
apart and a name says where it comes from. A table joined twice (a self-join) is refused: its two copies would
need names the question does not give.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from worlds.sql.query.literals import GenerateError, Schema

KEY = "key"
"""The joined table's row key in the SEL style: its rows numbered in the order of the tables' rowids."""


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class JoinEdge:
    """One table joined in, on pairs of equal columns (public names, ``table.column``)."""

    table: str
    on: tuple[tuple[str, str], ...]
    left: bool = False
    """A LEFT JOIN: rows of the tables before it are kept even with no match."""


@dataclass(frozen=True)
class JoinedTable:
    """The initialisation's output: ``first`` joined with each edge's table, every column of each kept."""

    first: str
    edges: tuple[JoinEdge, ...]
    sources: tuple[tuple[str, str], ...]
    """(table, column) of each column of the joined table, as the database spells them, in table order."""

    @property
    def tables(self) -> tuple[str, ...]:
        return (self.first, *(edge.table for edge in self.edges))

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(public(table, column) for table, column in self.sources)

    @property
    def name(self) -> str:
        """A readable name of the joined table (``singer+concert``)."""
        return "+".join(self.tables)

    def sql(self, key: bool = False) -> str:
        """A SELECT of the joined rows; with ``key``, a first column numbering them in the tables' rowid order
        (a row of a join is one row of each table, so the order is total and the same on every run)."""
        picks = [f"{quote(table)}.{quote(column)} AS {quote(public(table, column))}" for table, column in self.sources]
        if key:
            order = ", ".join(f"{quote(table)}.rowid" for table in self.tables)
            picks.insert(0, f"ROW_NUMBER() OVER (ORDER BY {order}) AS {KEY}")
        text = f"SELECT {', '.join(picks)} FROM {quote(self.first)}"
        for edge in self.edges:
            test = " AND ".join(f"{_qualified(a)} = {_qualified(b)}" for a, b in edge.on)
            text += f" {'LEFT ' if edge.left else ''}JOIN {quote(edge.table)} ON {test}"
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "first": self.first,
            "edges": [{"table": e.table, "on": [list(pair) for pair in e.on], "left": e.left} for e in self.edges],
            "sources": [list(source) for source in self.sources],
        }

    @classmethod
    def from_json(cls, data: Any) -> JoinedTable:
        edges = tuple(
            JoinEdge(str(e["table"]), tuple((str(a), str(b)) for a, b in e["on"]), bool(e.get("left", False)))
            for e in data["edges"]
        )
        sources = tuple((str(table), str(column)) for table, column in data["sources"])
        return cls(str(data["first"]), edges, sources)


def public(table: str, column: str) -> str:
    return f"{table}.{column}"


def _qualified(name: str) -> str:
    table, _, column = name.partition(".")
    return f"{quote(table)}.{quote(column)}"


def _fail(reason: str, detail: str) -> GenerateError:
    return GenerateError(f"join:{reason}", detail)


Resolver = Callable[[exp.Expr], str]


def read_join(tree: exp.Select, schema: Schema, where: list[exp.Expr]) -> tuple[JoinedTable, Resolver, list[exp.Expr]]:
    """The joined table of a query with joins, a resolver of its column references to public names, and the
    ``where`` conjuncts left once the column equalities that join tables are taken out of them."""
    source = tree.args.get("from_")
    first = source.this if source is not None else None
    nodes = [first, *(join.this for join in tree.args.get("joins") or [])]
    tables: list[str] = []
    aliases: dict[str, str] = {}
    for node in nodes:
        if not isinstance(node, exp.Table) or node.name.lower() not in schema or not schema[node.name.lower()]:
            raise _fail("not_a_table", node.sql(dialect="sqlite")[:80] if node is not None else "no FROM")
        table = next(iter(schema[node.name.lower()].values())).table
        if table in tables:
            raise _fail("self_join", f"{table} joined with itself")
        tables.append(table)
        aliases[node.alias_or_name.lower()] = table
        aliases.setdefault(table.lower(), table)

    def resolve(node: exp.Expr) -> str:
        if not isinstance(node, exp.Column) or isinstance(node.this, exp.Star):
            raise GenerateError("shape:not_a_column", node.sql(dialect="sqlite")[:80])
        if node.table:
            table = aliases.get(node.table.lower())
            if table is None or node.name.lower() not in schema[table.lower()]:
                raise GenerateError("shape:not_a_column", node.sql(dialect="sqlite")[:80])
        else:
            owners = [t for t in tables if node.name.lower() in schema[t.lower()]]
            if len(owners) != 1:
                raise _fail("ambiguous_column", f"{node.name} in {len(owners)} of the joined tables")
            table = owners[0]
        return public(table, schema[table.lower()][node.name.lower()].name)

    on: dict[str, list[tuple[str, str]]] = {table: [] for table in tables[1:]}
    left: set[str] = set()
    for join, table in zip(tree.args.get("joins") or [], tables[1:], strict=True):
        side, kind = (join.args.get("side") or "").upper(), (join.args.get("kind") or "").upper()
        if (
            join.args.get("using")
            or join.args.get("method")
            or side not in ("", "LEFT")
            or kind not in ("", "INNER", "CROSS")
        ):
            raise _fail("kind", join.sql(dialect="sqlite")[:80])
        if side == "LEFT":
            left.add(table)
        for node in conjuncts(join.args.get("on")):
            pair = _pair(node, resolve)
            on[_later(pair, tables, node)].append(pair)
    rest: list[exp.Expr] = []
    for node in where:  # an inner join's WHERE a.x = b.y is its ON
        if is_column_equality(node) and not left:
            pair = _pair(node, resolve)
            if pair[0].partition(".")[0] != pair[1].partition(".")[0]:
                on[_later(pair, tables, node)].append(pair)
                continue
        rest.append(node)
    for table in tables[1:]:
        if not on[table]:
            raise _fail("cross_join", f"{table} is joined on nothing")
    sources = tuple((t, c.name) for t in tables for c in schema[t.lower()].values())
    edges = tuple(JoinEdge(t, tuple(on[t]), t in left) for t in tables[1:])
    return JoinedTable(tables[0], edges, sources), resolve, rest


def conjuncts(node: exp.Expr | None) -> list[exp.Expr]:
    """The terms of an AND chain (an ON or WHERE clause), parentheses dropped."""
    if node is None or (isinstance(node, exp.Boolean) and node.this is True):  # sqlglot reads a bare JOIN as ON TRUE
        return []
    if isinstance(node, exp.Paren):
        return conjuncts(node.this)
    if isinstance(node, exp.And):
        return conjuncts(node.this) + conjuncts(node.expression)
    return [node]


def is_column_equality(node: exp.Expr) -> bool:
    return isinstance(node, exp.EQ) and isinstance(node.this, exp.Column) and isinstance(node.expression, exp.Column)


def _pair(node: exp.Expr, resolve: Resolver) -> tuple[str, str]:
    if not is_column_equality(node):
        raise _fail("condition", node.sql(dialect="sqlite")[:80])
    return resolve(node.this), resolve(node.expression)


def _later(pair: tuple[str, str], tables: list[str], node: exp.Expr) -> str:
    """The later-joined of the two tables an equality names: the edge whose ON it belongs to."""
    a, b = (side.partition(".")[0] for side in pair)
    if a == b:
        raise _fail("condition", f"{node.sql(dialect='sqlite')[:80]} names one table")
    later = max(tables.index(a), tables.index(b))
    if later == 0:
        raise _fail("condition", node.sql(dialect="sqlite")[:80])
    return tables[later]
