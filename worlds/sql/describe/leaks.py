"""Does a description give its query away? SQL syntax, a fragment of the query's text, or (obfuscated worlds) a
table or column name of the database.

Used by the tests over every sample query, by ``--describe-model`` (a model's text that quotes the SQL is
rejected) and by obfuscation as a last guard. Argument names in backticks and quoted example values are data,
not description, so they are left out of the SQL check.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

_ANY_CASE = ("select", "where", "join", "having", "union", "intersect", "group by", "order by", "json_each")
_UPPER = (
    "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "IN", "AS", "ON", "LIKE", "BETWEEN", "COUNT", "AVG", "SUM",
    "MIN", "MAX", "DESC", "ASC", "DISTINCT", "LIMIT", "OFFSET", "EXCEPT", "NULL", "IS", "ESCAPE", "CAST", "GROUP",
    "ORDER", "BY",
)  # fmt: skip
_SYNTAX = re.compile(
    r"\(\s*\*\s*\)"  # COUNT(*)
    r"|\b[A-Za-z_]\w*\("  # a call: avg(
    r"|\b[A-Za-z_]\w*\.[A-Za-z_]\w*"  # table.column
    r"|<>|!=|\|\||>=|<=|(?<![\w:]):[A-Za-z_]\w*"  # operators, a placeholder
    r"|\bT\d+\b"  # an alias
)
_QUOTED = re.compile(r"`[^`]*`|'[^']*'|⟨[^⟩]*⟩")
_TOKEN = re.compile(r"[A-Za-z0-9_]+")
FRAGMENT = 3
"""Consecutive tokens of the query's text that may not reappear in order in a description."""


def sql_leaks(text: str, sql: str | None = None) -> list[str]:
    """What in ``text`` is SQL: keywords, syntax, or a run of ``FRAGMENT`` tokens of ``sql``'s text."""
    bare = _QUOTED.sub(" ", text)
    found = [w for w in _ANY_CASE if re.search(rf"(?<![A-Za-z0-9_]){w}(?![A-Za-z0-9_])", bare, re.IGNORECASE)]
    found += [w for w in _UPPER if re.search(rf"(?<![A-Za-z0-9_]){w}(?![A-Za-z0-9_])", bare)]
    found += [m.group(0) for m in _SYNTAX.finditer(bare)]
    if sql:
        query = _query_tokens(sql)
        grams = {tuple(query[i : i + FRAGMENT]) for i in range(len(query) - FRAGMENT + 1)}
        words = [t.lower() for t in _TOKEN.findall(bare)]
        found += [" ".join(words[i : i + FRAGMENT]) for i in range(len(words) - FRAGMENT + 1)
                  if tuple(words[i : i + FRAGMENT]) in grams]  # fmt: skip
    return found


def _query_tokens(sql: str) -> list[str]:
    """The query's tokens as SQLite reads them: a quoted identifier (``"Free Meal Count (K-12)"``) is one token, so
    a description may say "free meal count" without quoting the query."""
    try:
        tokens = sqlglot.Dialect.get_or_raise("sqlite").tokenize(sql)
    except SqlglotError:
        return [t.lower() for t in _TOKEN.findall(sql)]
    return [t.text.lower() for t in tokens]


def query_names(sql: str) -> tuple[list[str], list[str]]:
    """Tables and columns the query's text names (``json_each``, ``value``, ``key`` and ``rowid`` are SQLite's)."""
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except SqlglotError:
        return [], []
    tables = [t.name for t in tree.find_all(exp.Table) if t.name and not isinstance(t.this, exp.Anonymous)]
    sqlite_own = {"rowid", "value", "key"}
    columns = [c.name for c in tree.find_all(exp.Column) if c.name and c.name.lower() not in sqlite_own]
    return list(dict.fromkeys(tables)), list(dict.fromkeys(columns))


def name_pattern(names: Iterable[str]) -> re.Pattern[str] | None:
    """Whole-word matches of each name as written and with its separators as spaces (plurals too), any case."""
    forms: set[str] = set()
    for name in names:
        words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
        forms.add(re.escape(name.lower()))
        spaced = " ".join(re.sub(r"[^0-9A-Za-z]+", " ", words).lower().split())
        if spaced:
            forms.add(r"[\s_\-]*".join(re.escape(w) for w in spaced.split()))
    forms.discard("")
    if not forms:
        return None
    alternatives = "|".join(sorted(forms, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9])(?:{alternatives})(?:e?s)?(?![A-Za-z0-9])", re.IGNORECASE)


def name_leaks(text: str, names: Iterable[str]) -> list[str]:
    pattern = name_pattern(names)
    return [m.group(0) for m in pattern.finditer(text)] if pattern is not None else []
