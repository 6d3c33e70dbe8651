"""A parsed query in words: what it returns, over which rows, filtered, grouped, ordered and cut how.

Descriptions are written from the tree, never copied from its text: an agent reads what a function does, not
the SQL that does it (the study that built these worlds documents functions without their query). Names come
from a ``Namer``: ``PlainNamer`` says ``genre`` for a column and ``book`` for a table (or BIRD's own column
labels where the database ships them); the obfuscated worlds' namer says ``field 5`` and ``table 2``. A
parameter's placeholder ``:p0`` becomes the marker ``⟨p0⟩``, which ``SqlFunction.describe`` fills with the
argument's name. No SQL keyword survives: conditions say "whose", never "where"; sources are "combined with",
never joined.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from sqlglot import exp

from worlds.sql.engine.execute import Column

Schema = dict[str, dict[str, Column]]
KEY_COLUMN = "rowid"
_AGGREGATE_WORDS: dict[type[exp.Expr], str] = {
    exp.Avg: "average",
    exp.Sum: "total",
    exp.Min: "lowest",
    exp.Max: "highest",
}
_COMPARE: dict[type[exp.Expr], tuple[str, str]] = {
    exp.EQ: ("is", "is not"),
    exp.NEQ: ("is not", "is"),
    exp.GT: ("is greater than", "is not greater than"),
    exp.GTE: ("is at least", "is below"),
    exp.LT: ("is less than", "is not less than"),
    exp.LTE: ("is at most", "is above"),
}
_FLIP: dict[type[exp.Expr], type[exp.Expr]] = {exp.GT: exp.LT, exp.LT: exp.GT, exp.GTE: exp.LTE, exp.LTE: exp.GTE}


def humanize(identifier: str) -> str:
    """``Song_Name`` -> ``song name``; ``birthYear`` -> ``birth year``; ``Count (K-12)`` keeps its brackets."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", identifier).replace("_", " ")
    words = re.sub(r"\s*\(\s*", " (", spaced).split()
    return " ".join(w.lower() for w in words).strip() or identifier.lower()


class Namer(Protocol):
    def entity(self, table: str) -> str:
        """A table as a noun: ``book`` / ``table 2`` (followed by "rows")."""
        ...

    def field(self, table: str | None, column: str, qualify: bool) -> str:
        """A column as a noun; ``qualify`` when the rows come from several tables."""
        ...


@dataclass(frozen=True)
class PlainNamer:
    """The schema's own words: humanised identifiers, or BIRD's column labels where the database has them."""

    schema: Schema

    def entity(self, table: str) -> str:
        return humanize(table)

    def field(self, table: str | None, column: str, qualify: bool) -> str:
        found = self.schema.get((table or "").lower(), {}).get(column.lower())
        words = found.label if found is not None and found.label else humanize(column)
        return f"{words} of {humanize(table)}" if qualify and table else words


@dataclass(frozen=True)
class _Scope:
    tables: dict[str, str]
    """Alias or name (lower-case) -> table name, for the sources of one SELECT."""
    lists: dict[str, str]
    """Alias or ``json_each`` (lower-case) -> the list placeholder a ``json_each(:p)`` source reads."""
    many: bool


class Prose:
    """Writes one query in words with one namer."""

    def __init__(self, namer: Namer) -> None:
        self.namer = namer

    def sentence(self, tree: exp.Expr) -> str:
        """``Returns ...`` for a whole query."""
        return f"Returns {self.phrase(tree)}."

    def phrase(self, tree: exp.Expr) -> str:
        """A noun phrase for what the query returns: ``the title of book rows whose genre is ⟨p0⟩``."""
        if isinstance(tree, exp.Subquery | exp.Paren):
            return self.phrase(tree.this)
        if isinstance(tree, exp.SetOperation):
            left, right = self.phrase(tree.this), self.phrase(tree.expression)
            if isinstance(tree, exp.Union):
                text = f"{left}, together with {right}"
            elif isinstance(tree, exp.Intersect):
                text = f"{left} that also appear among {right}"
            else:
                text = f"{left}, leaving out any that appear among {right}"
            return text + self._order_and_cut(tree, None)
        if not isinstance(tree, exp.Select):
            return "a computed result"
        scope = _scope(tree)
        outputs = [self._output(p, scope) for p in tree.expressions]
        source = self._source(tree, scope)
        where = tree.args.get("where")
        condition = self._where(where.this, scope) if where is not None else ""
        if scope.lists and not scope.tables and not scope.many and not _aggregated(tree):
            kind = "values" if all(_is_value(p) for p in tree.expressions) else "records"
            slot = next(iter(scope.lists.values()))
            return f"the {kind} in {slot}{condition}" + self._order_and_cut(tree, scope)
        group = tree.args.get("group")
        having = tree.args.get("having")
        aggregates = [p for p in tree.expressions if (p.this if isinstance(p, exp.Alias) else p).find(exp.AggFunc)]
        if group is not None:
            keys = _join([self.expression(g, scope).removeprefix("the ") for g in group.expressions])
            text = f"{_join(outputs)} for each {keys} of {source}{condition}"
            if having is not None:
                text += f", keeping only the groups for which {self.condition(having.this, scope)}"
        elif aggregates and len(aggregates) == len(tree.expressions):
            if len(outputs) == 1 and outputs[0] == "the number of rows":
                text = f"the number of {source}{condition}"
            else:
                text = f"{_join(outputs)} over {source}{condition}"
        else:
            distinct = "the different values of " if tree.args.get("distinct") else ""
            link = ", looking at" if scope.many else " of"
            text = f"{distinct}{_join(outputs)}{link} {source}{condition}"
        return text + self._order_and_cut(tree, scope)

    def _source(self, select: exp.Select, scope: _Scope) -> str:
        parts: list[str] = []
        sources = [select.args.get("from_"), *(select.args.get("joins") or [])]
        for n, source in enumerate(sources):
            node = source.this if source is not None else None
            if isinstance(node, exp.Table) and isinstance(node.this, exp.Anonymous):
                slot = _list_slot(node)
                text = f"the values in {slot}" if slot else "a list of values"
            elif isinstance(node, exp.Table):
                text = f"{self.namer.entity(node.name)} rows"
            else:
                text = f"rows of {self.phrase(node) if node is not None else 'a computed result'}"
            if n and isinstance(source, exp.Join):
                matched = self._matched(source.args.get("on"), scope)
                text = f"combined with {text}{matched}"
            parts.append(text)
        return " ".join(parts) if parts else "a single computed row"

    def _matched(self, on: exp.Expr | None, scope: _Scope) -> str:
        """`` (matched on author id)`` for the usual equality of two same-named keys."""
        if isinstance(on, exp.EQ) and isinstance(on.this, exp.Column) and isinstance(on.expression, exp.Column):
            same = on.this.name.lower() == on.expression.name.lower()
            if same and isinstance(self.namer, PlainNamer):  # the usual foreign key: one name says it
                return f" (matched on {self.namer.field(None, on.this.name, False)})"
            return f" ({self._column(on.this, scope)} matching {self._column(on.expression, scope)})"
        return f" (matched when {self.condition(on, scope)})" if on is not None else ""

    def _where(self, node: exp.Expr, scope: _Scope) -> str:
        first = _first_operand(node)
        if isinstance(first, exp.Column) and not scope.many and not scope.lists:
            return f" whose {self.condition(node, scope).removeprefix('the ')}"
        return f" for which {self.condition(node, scope)}"

    def _order_and_cut(self, tree: exp.Expr, scope: _Scope | None) -> str:
        text = ""
        order = tree.args.get("order")
        if order is not None:
            keys = []
            for ordered in order.expressions:
                direction = "highest first" if ordered.args.get("desc") else "lowest first"
                keys.append(f"{self.expression(ordered.this, scope)} ({direction})")
            text += ", sorted by " + ", then ".join(keys)
        limit = tree.args.get("limit")
        if limit is not None:
            text += f", keeping only the first {self.value(limit.expression, scope)} rows"
        offset = tree.args.get("offset")
        if offset is not None:
            text += f" after skipping {self.value(offset.expression, scope)}"
        return text

    def _output(self, node: exp.Expr, scope: _Scope) -> str:
        if isinstance(node, exp.Alias):
            node = node.this
        if isinstance(node, exp.Star):
            return "every field"
        text = self.expression(node, scope)
        return f"the {text}" if isinstance(node, exp.Column) and not text.startswith("the ") else text

    def expression(self, node: exp.Expr, scope: _Scope | None) -> str:
        """A value-producing expression as a noun phrase."""
        scope = scope or _Scope({}, {}, False)
        if isinstance(node, exp.Paren):
            return self.expression(node.this, scope)
        if isinstance(node, exp.Column):
            return self._column(node, scope)
        if isinstance(node, exp.Count):
            inner = node.this
            if inner is None or isinstance(inner, exp.Star):
                return "the number of rows"
            if isinstance(inner, exp.Distinct):
                values = _join([self.expression(e, scope) for e in inner.expressions])
                return f"the number of different {values} values"
            return f"the number of {self.expression(inner, scope)} values"
        word = _AGGREGATE_WORDS.get(type(node))
        if word is not None:
            inner = node.this
            if isinstance(inner, exp.Distinct):
                return f"the {word} of the different {_join([self.expression(e, scope) for e in inner.expressions])}"
            return f"the {word} {self.expression(inner, scope)}"
        if isinstance(node, exp.Literal | exp.Placeholder | exp.Neg | exp.Null):
            return self.value(node, scope)
        columns = list(dict.fromkeys(self._column(c, scope) for c in node.find_all(exp.Column)))
        return f"a value computed from {_join(columns)}" if columns else "a fixed value"

    def _column(self, node: exp.Column, scope: _Scope) -> str:
        name = node.name
        qualifier = node.table.lower()
        if qualifier in scope.lists or (not qualifier and name.lower() == "value" and scope.lists):
            slot = scope.lists.get(qualifier) or next(iter(scope.lists.values()))
            return f"the value in {slot}" if name.lower() == "value" else f"the {humanize(name)} of the items in {slot}"
        if name.lower() == KEY_COLUMN:
            return "the row key"
        table = scope.tables.get(qualifier) if qualifier else None
        if table is None and len(set(scope.tables.values())) == 1:
            table = next(iter(scope.tables.values()))
        return self.namer.field(table, name, scope.many)

    def value(self, node: exp.Expr | None, scope: _Scope | None) -> str:
        """A compared value: a parameter's marker, a constant, a field or another query's result."""
        if node is None:
            return "a value"
        if isinstance(node, exp.Placeholder):
            return f"⟨{node.name}⟩"
        if isinstance(node, exp.Literal):
            return f"'{node.this}'" if node.is_string else str(node.this)
        if isinstance(node, exp.Neg):
            return f"-{self.value(node.this, scope)}"
        if isinstance(node, exp.Null):
            return "nothing"
        if isinstance(node, exp.Paren):
            return self.value(node.this, scope)
        if isinstance(node, exp.Subquery | exp.Select | exp.SetOperation):
            return self.phrase(node)
        if isinstance(node, exp.Boolean):
            return "true" if node.this else "false"
        return self.expression(node, scope)

    def condition(self, node: exp.Expr, scope: _Scope | None, negated: bool = False) -> str:
        """A boolean expression in words."""
        scope = scope or _Scope({}, {}, False)
        if isinstance(node, exp.Paren):
            return self.condition(node.this, scope, negated)
        if isinstance(node, exp.Not):
            return self.condition(node.this, scope, not negated)
        if isinstance(node, exp.And | exp.Or):
            word = "and" if isinstance(node, exp.And) != negated else "or"
            left = self.condition(node.this, scope, negated)
            right = self.condition(node.expression, scope, negated)
            return f"{left} {word} {right}" if word == "and" else f"either {left} or {right}"
        if isinstance(node, exp.Escape):
            return self.condition(node.this, scope, negated)
        if type(node) in _COMPARE:
            left, right, kind = node.this, node.expression, type(node)
            if not _is_subject(left) and _is_subject(right):
                left, right, kind = right, left, _FLIP.get(kind, kind)
            words = _COMPARE[kind][1 if negated else 0]
            return f"{self.expression(left, scope)} {words} {self.value(right, scope)}"
        if isinstance(node, exp.Between):
            verb = "is not between" if negated else "is between"
            low, high = self.value(node.args.get("low"), scope), self.value(node.args.get("high"), scope)
            return f"{self.expression(node.this, scope)} {verb} {low} and {high}"
        if isinstance(node, exp.Like | exp.ILike):
            subject, pattern = self.expression(node.this, scope), node.expression
            inner = _contained(pattern)
            if inner is not None:
                return f"{subject} {'does not contain' if negated else 'contains'} {self.value(inner, scope)}"
            verb = "does not match" if negated else "matches"
            return f"{subject} {verb} the pattern {self.value(pattern, scope)} (% any text, _ any one character)"
        if isinstance(node, exp.In):
            verb = "is not one of" if negated else "is one of"
            query = node.args.get("query")
            if query is not None:
                return f"{self.expression(node.this, scope)} {verb} {self.phrase(query)}"
            values = ", ".join(self.value(v, scope) for v in node.expressions)
            return f"{self.expression(node.this, scope)} {verb} {values}"
        if isinstance(node, exp.Is):
            present = negated != (not isinstance(node.expression, exp.Null))
            return f"{self.expression(node.this, scope)} {'is present' if present else 'is missing'}"
        if isinstance(node, exp.Exists):
            return f"{'there are no' if negated else 'there are'} {self.phrase(node.this)}"
        if isinstance(node, exp.Column):
            return f"{self._column(node, scope)} {'is false' if negated else 'is true'}"
        columns = list(dict.fromkeys(self._column(c, scope) for c in node.find_all(exp.Column)))
        fixed = f"a condition on {_join(columns)}" if columns else "a fixed condition"
        return f"not {fixed}" if negated else fixed


def _scope(select: exp.Select) -> _Scope:
    tables: dict[str, str] = {}
    lists: dict[str, str] = {}
    count = 0
    for source in [select.args.get("from_"), *(select.args.get("joins") or [])]:
        node = source.this if source is not None else None
        if not isinstance(node, exp.Table):
            count += node is not None
            continue
        count += 1
        if isinstance(node.this, exp.Anonymous):
            slot = _list_slot(node)
            for key in {node.alias.lower(), "json_each"} - {""}:
                lists[key] = slot or "a list"
            continue
        tables[node.alias_or_name.lower()] = node.name
        tables[node.name.lower()] = node.name
    return _Scope(tables, lists, count > 1)


def _aggregated(select: exp.Select) -> bool:
    return bool(select.args.get("group")) or any(p.find(exp.AggFunc) for p in select.expressions)


def _is_value(projection: exp.Expr) -> bool:
    node = projection.this if isinstance(projection, exp.Alias) else projection
    return isinstance(node, exp.Column) and node.name.lower() == "value"


def _list_slot(table: exp.Table) -> str | None:
    placeholder = table.find(exp.Placeholder)
    return f"⟨{placeholder.name}⟩" if placeholder is not None else None


def _contained(pattern: exp.Expr) -> exp.Expr | None:
    """``x`` of ``'%' || x || '%'``, the shape a contains-parameter takes."""
    if isinstance(pattern, exp.DPipe) and isinstance(pattern.this, exp.DPipe):
        head, tail = pattern.this.this, pattern.expression
        if all(isinstance(p, exp.Literal) and p.this == "%" for p in (head, tail)):
            inner: exp.Expr = pattern.this.expression
            return inner
    return None


def _is_subject(node: exp.Expr) -> bool:
    return isinstance(node, exp.Column | exp.AggFunc)


def _first_operand(node: exp.Expr) -> exp.Expr | None:
    while isinstance(node, exp.And | exp.Or | exp.Paren | exp.Not | exp.Escape):
        node = node.this
    return node.this if isinstance(node, exp.Expr) else None


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
