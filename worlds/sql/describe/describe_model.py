"""Model-written descriptions of generated SQL functions, kept only when they hold up against the code.

``squall import ... --describe-model M`` asks a model once per function for a short description (prompt: the name,
the parameters with types, the SQL with parameter names in place of values, the schema of the tables it reads) and
keeps it only if it passes every check below; otherwise the offline description (the query in words,
``worlds.sql.query.prose``) stays. Checks, the first failing one is the reason recorded:

- ``empty``: nothing but whitespace or quotes came back.
- ``too_long``: ``MAX_CHARS`` characters or more (a tool description, not documentation).
- ``missing_parameter``: a parameter's exact name is absent (whole word, case-insensitive); the agent calls by name.
- ``invented_identifier``: an identifier-looking token the function does not have. A token is identifier-looking
  when it joins word parts with underscores (``min_pages``), is in backticks, or follows a colon (``:genre``).
  It is allowed when it is a parameter, the function's name, or a table or column of the database (any case):
  those are real; anything else would send the agent looking for an argument or field that does not exist.
- ``contains_sql``: SQL keywords or syntax, or a run of the query's own text (``worlds.sql.describe.leaks``): the model
  sees the SQL to describe it, and a description that repeats it gives the function away.
- ``no_table_or_column``: it names none of the tables or columns the SQL reads, beyond the parameters' own names
  (case-insensitive, underscores and spaces interchangeable, plurals too): it says nothing checkable about the query.
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import sqlglot
from sqlglot import exp

from sim.core import ChatMessage, ModelRequest
from worlds.sql.describe.leaks import sql_leaks
from worlds.sql.engine.model import SqlFunction

MAX_CHARS = 300
Schema = Mapping[str, Sequence[tuple[str, str]]]
"""table -> [(column, declared type)] of one database."""
Complete = Callable[[ModelRequest], Awaitable[str | None]]

_SLOT = re.compile(r":(\w+)")
_SNAKE = re.compile(r"(?<![\w`:])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w`])")
_TICKED = re.compile(r"`([^`\s]+)`")
_COLON = re.compile(r"(?<![\w:]):([A-Za-z_]\w*)")


@dataclass
class DescribeReport:
    asked: int = 0
    kept: int = 0
    request_failures: int = 0
    rejected_by_reason: Counter[str] = field(default_factory=Counter)

    def as_json(self, model: str) -> dict[str, object]:
        return {
            "model": model,
            "asked": self.asked,
            "kept": self.kept,
            "rejected": sum(self.rejected_by_reason.values()),
            "request_failures": self.request_failures,
            "rejected_by_reason": dict(sorted(self.rejected_by_reason.items())),
        }


def read_schema(path: Path) -> dict[str, list[tuple[str, str]]]:
    """Tables and their columns of a SQLite file, opened read-only."""
    connection = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    try:
        tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {
            table: [(row[1], row[2]) for row in connection.execute(f'PRAGMA table_info("{table}")')]
            for table in tables
            if not table.startswith("sqlite_")
        }
    finally:
        connection.close()


def named_sql(function: SqlFunction) -> str:
    """The SQL with ``:name`` where the placeholders ``:slot`` are."""
    names = {p.slot: p.name for p in function.params}
    return _SLOT.sub(lambda m: f":{names.get(m.group(1), m.group(1))}", function.sql)


def read_names(function: SqlFunction) -> tuple[list[str], list[str]]:
    """Tables and columns the SQL reads."""
    tree = sqlglot.parse_one(function.sql, read="sqlite")
    tables = [t.name for t in tree.find_all(exp.Table) if t.name and t.name.lower() != "json_each"]
    columns = [c.name for c in tree.find_all(exp.Column) if c.name]
    return list(dict.fromkeys(tables)), list(dict.fromkeys(columns))


def describe_request(model: str, function: SqlFunction, schema: Schema, seed: int = 0) -> ModelRequest:
    tables, _ = read_names(function)
    params = "\n".join(f"- {p.name} ({p.type})" for p in function.params) or "(none)"
    ddl = "\n".join(
        f"- {t}({', '.join(f'{c} {ty}'.strip() for c, ty in schema.get(t, ()))})" for t in tables if t in schema
    )
    text = (
        "Write a one- or two-sentence description of this database function for an assistant that calls it. "
        "Say what it returns and name every parameter by its exact name. Describe it in plain words: no SQL, no "
        "query text. Reply with the description only.\n\n"
        f"Function: {function.name}\nParameters:\n{params}\nSQL: {named_sql(function)}\nTables:\n{ddl}"
    )
    return ModelRequest(
        role="generator",
        model=model,
        messages=(ChatMessage(role="user", content=text),),
        max_tokens=120,
        temperature=0.0,
        seed=seed,
    )


def _words(text: str) -> str:
    return " " + " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower().replace("_", " ")).split()) + " "


def identifier_tokens(text: str) -> set[str]:
    """Tokens of ``text`` that read as code identifiers (see the module doc)."""
    found = set(_SNAKE.findall(text)) | set(_COLON.findall(text))
    found |= {t.strip(".,;:()") for t in _TICKED.findall(text)}
    return {t for t in found if t}


def check_description(text: str, function: SqlFunction, schema: Schema) -> str | None:
    """None when ``text`` may replace the offline description, else the reason it may not."""
    if not text:
        return "empty"
    if len(text) >= MAX_CHARS:
        return "too_long"
    lowered = text.lower()
    for param in function.params:
        if not re.search(rf"(?<![A-Za-z0-9_]){re.escape(param.name.lower())}(?![A-Za-z0-9_])", lowered):
            return "missing_parameter"
    known = {p.name.lower() for p in function.params} | {function.name.lower()}
    known |= {t.lower() for t in schema} | {c.lower() for cols in schema.values() for c, _ in cols}
    tables, columns = read_names(function)
    known |= {n.lower() for n in (*tables, *columns)}
    if any(token.lower() not in known for token in identifier_tokens(text)):
        return "invented_identifier"
    if sql_leaks(text, named_sql(function)):
        return "contains_sql"
    words, params = _words(text), {_words(p.name) for p in function.params}
    # A parameter often shares its column's name; naming it proves nothing more, so it does not count here.
    names = [_words(name) for name in (*tables, *columns) if _words(name) not in params]
    if not any(re.search(rf"{re.escape(name[:-1])}(?:e?s)? ", words) for name in names):  # plurals count too
        return "no_table_or_column"
    return None


def clean(reply: str) -> str:
    """One paragraph, surrounding quotes dropped."""
    return " ".join(reply.split()).strip().strip("\"'").strip()


async def describe_functions(
    complete: Complete,
    model: str,
    functions: Iterable[SqlFunction],
    schemas: Mapping[str, Schema],
    seed: int = 0,
) -> tuple[list[SqlFunction], DescribeReport]:
    """The functions with model descriptions where they pass ``check_description``; the rest unchanged."""
    report = DescribeReport()
    out: list[SqlFunction] = []
    for function in functions:
        schema = schemas.get(function.db_id, {})
        report.asked += 1
        reply = await complete(describe_request(model, function, schema, seed))
        if reply is None:
            report.request_failures += 1
            out.append(function)
            continue
        text = clean(reply)
        reason = check_description(text, function, schema)
        if reason is not None:
            report.rejected_by_reason[reason] += 1
            out.append(function)
            continue
        report.kept += 1
        # The text names parameters literally, so it carries no ⟨slot⟩ markers for describe() to fill.
        out.append(function.model_copy(update={"summary": text}))
    return out, report
