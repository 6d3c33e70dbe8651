"""Every value literal of a query becomes a parameter, in textual order.

sqlglot walks the tree in its own order, not the text's, so literals are sorted by their position in the
canonical SQL text. A negative number is ``Neg(Literal)`` there: it is taken as one literal. ``LIKE '%x%'``
becomes ``LIKE '%' || :p || '%'`` so the agent passes ``x``, not a pattern. Constants that are part of the
query's logic rather than its question (``ORDER BY 1``, ``substr(x, 1, 3)``, ``price * 1.1``) stay as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from worlds.sql.engine.execute import Column
from worlds.sql.engine.model import LIKE_ESCAPE
from worlds.sql.query.prose import PlainNamer, Prose, humanize

Schema = dict[str, dict[str, Column]]

COMPARISONS: dict[type[exp.Expr], str] = {
    exp.EQ: "=",
    exp.NEQ: "!=",
    exp.GT: ">",
    exp.GTE: ">=",
    exp.LT: "<",
    exp.LTE: "<=",
}
_FLIPPED = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "=": "=", "!=": "!="}
_PHRASE = {
    "=": "equal to",
    "!=": "not equal to",
    ">": "greater than",
    ">=": "at least",
    "<": "less than",
    "<=": "at most",
}
_PREFIX = {"=": "", "!=": "other_than_", ">": "min_", ">=": "min_", "<": "max_", "<=": "max_"}
_REAL_TYPES = ("REAL", "FLOA", "DOUB", "DEC", "NUM")


class GenerateError(ValueError):
    """A query the generator cannot take apart; ``reason`` is a short class for the import report."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class LiteralSlot:
    """One literal of the query, now the placeholder ``:slot``."""

    slot: str
    value: Any
    base_name: str
    json_type: str
    description: str
    column: Column | None
    contains: bool
    swappable: bool


@dataclass
class Parametrised:
    tree: exp.Expr
    literals: list[LiteralSlot]

    def literal(self, slot: str) -> LiteralSlot:
        return next(lit for lit in self.literals if lit.slot == slot)


def parse(sql: str, schema: Schema) -> exp.Expr:
    """The query in canonical SQLite form. Double-quoted words that name no column are string literals, as
    SQLite itself reads them (Spider writes ``WHERE name = "APG"``)."""
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except SqlglotError as error:
        raise GenerateError("parse_error", str(error).splitlines()[0][:200]) from error
    if not isinstance(tree, exp.Query):
        raise GenerateError("not_a_query", f"a {type(tree).__name__} statement, not a SELECT")
    columns = {name for table in schema.values() for name in table}
    for column in list(tree.find_all(exp.Column)):
        identifier = column.this
        quoted = isinstance(identifier, exp.Identifier) and identifier.quoted
        if not column.table and quoted and identifier.name.lower() not in columns:
            column.replace(exp.Literal.string(identifier.name))
    canonical = tree.sql(dialect="sqlite")
    try:  # re-parse so literal positions are positions in the canonical text
        return sqlglot.parse_one(canonical, read="sqlite")
    except SqlglotError as error:
        raise GenerateError("parse_error", f"canonical form does not parse: {error}") from error


def parametrise(tree: exp.Expr, schema: Schema) -> Parametrised:
    """The tree with each value literal replaced by ``:p<n>`` (numbered in textual order)."""
    found: list[tuple[int, exp.Expr, Any]] = []
    for literal in tree.find_all(exp.Literal):
        node: exp.Expr = literal
        value = _python_value(literal)
        if isinstance(literal.parent, exp.Neg):
            node, value = literal.parent, -value
        if not _is_value_position(node):
            continue
        found.append((int(literal.meta.get("start", 0)), node, value))
    found.sort(key=lambda item: item[0])
    literals: list[LiteralSlot] = []
    for n, (_, node, value) in enumerate(found):
        slot = f"p{n}"
        lit = _describe(node, value, slot, schema)
        placeholder: exp.Expr = exp.Placeholder(this=slot)
        if lit.contains:
            percent = exp.Literal.string("%")
            placeholder = exp.DPipe(this=exp.DPipe(this=percent, expression=placeholder), expression=percent.copy())
        node.replace(placeholder)
        if lit.contains:
            _escape_like(placeholder)
        literals.append(lit)
    return Parametrised(tree=tree, literals=literals)


def _escape_like(placeholder: exp.Expr) -> None:
    """``x LIKE '%' || :p || '%' ESCAPE '\\'``: the agent's text is matched as text, its ``%`` and ``_`` escaped when
    bound (``SqlFunction.bindings``), so a ``%`` never returns every row. The LIKE node is moved under the ESCAPE,
    not copied: literals found inside it keep their place in the tree."""
    like = placeholder.parent
    while like is not None and not isinstance(like, exp.Like | exp.ILike):
        like = like.parent
    if like is None:
        return
    escape = exp.Escape(expression=exp.Literal.string(LIKE_ESCAPE))
    like.replace(escape)
    escape.set("this", like)


def _python_value(literal: exp.Literal) -> Any:
    if literal.is_string:
        return literal.this
    text = str(literal.this)
    if re.fullmatch(r"\d+", text):
        return int(text)
    try:
        number = Decimal(text)
    except ArithmeticError as error:
        raise GenerateError("parse_error", f"unreadable number {text!r}") from error
    return (
        int(number) if number == number.to_integral_value() and "." not in text and "e" not in text else float(number)
    )


def _is_value_position(node: exp.Expr) -> bool:
    parent = node.parent
    if isinstance(parent, exp.Limit | exp.Offset):
        return True
    if isinstance(parent, exp.Paren):
        return _is_value_position(parent)
    if not isinstance(parent, (*COMPARISONS, exp.Like, exp.ILike, exp.Between, exp.In)):
        return False
    return not _in_projection(node)


def _in_projection(node: exp.Expr) -> bool:
    """A literal inside the SELECT list is part of what is computed, not of what is asked."""
    child, parent = node, node.parent
    while parent is not None:
        if isinstance(parent, exp.Select):
            return child.arg_key == "expressions"
        child, parent = parent, parent.parent
    return False


def _describe(node: exp.Expr, value: Any, slot: str, schema: Schema) -> LiteralSlot:
    parent = node.parent
    while isinstance(parent, exp.Paren):
        parent = parent.parent
    json_type = "string" if isinstance(value, str) else "integer" if isinstance(value, int) else "number"
    column: Column | None = None
    other: exp.Expr | None = None
    if isinstance(parent, exp.Limit | exp.Offset):
        word = "limit" if isinstance(parent, exp.Limit) else "offset"
        text = "Maximum number of rows to return." if word == "limit" else "Number of leading rows to skip."
        return LiteralSlot(slot, value, word, "integer", text, None, False, False)
    assert parent is not None
    other = parent.this if node is not parent.this else parent.expression
    column = resolve_column(other, schema) if isinstance(other, exp.Column) else None
    subject = column_subject(column) if column is not None else Prose(PlainNamer(schema)).expression(other, None)
    notes = _notes(column)
    base = _base(other, column)
    if column is not None and json_type == "integer" and column.declared_type.upper().startswith(_REAL_TYPES):
        json_type = "number"
    if isinstance(parent, exp.Like | exp.ILike):
        text = str(value)
        inner = text[1:-1] if len(text) >= 2 and text.startswith("%") and text.endswith("%") else None
        if inner is not None and not any(c in inner for c in "%_"):
            return LiteralSlot(
                slot, inner, f"{base}_contains", "string", f"Text that {subject} contains.{notes}", column, True, False
            )
        description = f"A pattern {subject} must match (% any text, _ any one character).{notes}"
        return LiteralSlot(slot, text, f"{base}_pattern", "string", description, column, False, False)
    if isinstance(parent, exp.Between):
        bound = "low" if parent.args.get("low") is node else "high"
        word = "lowest" if bound == "low" else "highest"
        description = f"The {word} {subject} to include (inclusive).{notes}"
        name = f"{base}_{'from' if bound == 'low' else 'to'}"
        return LiteralSlot(slot, value, name, json_type, description, column, False, False)
    if isinstance(parent, exp.In):
        description = f"One of the values {subject} may equal.{notes}"
        return LiteralSlot(slot, value, base, json_type, description, column, False, column is not None)
    op = COMPARISONS[type(parent)]
    if node is parent.this:
        op = _FLIPPED[op]
    description = f"Keeps rows whose {subject} is {_PHRASE[op]} this value.{notes}"
    swappable = op == "=" and column is not None
    return LiteralSlot(slot, value, _PREFIX[op] + base, json_type, description, column, False, swappable)


def comparison_words(parent: exp.Expr, node: exp.Expr) -> tuple[str, str]:
    """(name prefix, phrase) for a value compared by ``parent`` from the side ``node`` is on."""
    op = COMPARISONS[type(parent)]
    if node is parent.this:
        op = _FLIPPED[op]
    return _PREFIX[op], _PHRASE[op]


def resolve_column(column: exp.Column, schema: Schema) -> Column | None:
    """The schema column a (possibly aliased) column reference names, looking in its own SELECT's tables."""
    select = column.find_ancestor(exp.Select)
    tables: dict[str, str] = {}
    if select is not None:
        sources = [select.args.get("from_"), *(select.args.get("joins") or [])]
        for source in sources:
            table = source.this if source is not None else None
            if isinstance(table, exp.Table):
                tables[table.alias_or_name.lower()] = table.name.lower()
                tables[table.name.lower()] = table.name.lower()
    name = column.name.lower()
    if column.table:
        table_name = tables.get(column.table.lower(), column.table.lower())
        return schema.get(table_name, {}).get(name)
    for table_name in dict.fromkeys(tables.values()):
        if name in schema.get(table_name, {}):
            return schema[table_name][name]
    return None


def column_subject(column: Column) -> str:
    """A column in words: ``genre (of book)``; BIRD's label where the database gives one."""
    return f"{column.label or humanize(column.name)} (of {humanize(column.table)})"


def _notes(column: Column | None) -> str:
    """The database's own note on the column (BIRD's descriptions), if any."""
    return f" About it: {column.description.rstrip('.')}." if column is not None and column.description else ""


def _base(other: exp.Expr | None, column: Column | None) -> str:
    if column is not None:
        return identifier_word(column.name)
    if isinstance(other, exp.AggFunc):
        inner = other.this
        suffix = f"_{identifier_word(inner.name)}" if isinstance(inner, exp.Column) else ""
        return identifier_word(other.key) + suffix
    if isinstance(other, exp.Column):
        return identifier_word(other.name)
    return "value"


def identifier_word(text: str) -> str:
    """A lower-case snake_case word fit for a function or argument name."""
    word = re.sub(r"[^0-9a-zA-Z]+", "_", text).strip("_").lower()
    if not word:
        return "value"
    return word if word[0].isalpha() else f"v_{word}"
