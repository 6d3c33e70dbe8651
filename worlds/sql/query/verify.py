"""One question to one verified task: every solution path must reproduce the SQL's own result.

Paths: the whole query with the question's literals (primary), and, for a nested query, the inner query then
the outer query fed the inner's result (alternative). The outer's input is known here because execution is
deterministic; it is written into the gold call. The paths share no function, so losing the whole-query function
(an outage) leaves the other path.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim.core import Goal, GoldCall, Task, UserIntent
from worlds.sql.engine.execute import QUERY_TIME_LIMIT_S, QueryError, QueryResult, read_schema, results_equal, run_query
from worlds.sql.engine.formats import Question
from worlds.sql.engine.model import Rejection, SqlFunction
from worlds.sql.query.functions import FunctionLibrary, build_function
from worlds.sql.query.literals import GenerateError, Parametrised, Schema, parametrise, parse
from worlds.sql.query.prose import PlainNamer, Prose
from worlds.sql.query.split import LIST_SLOT, find_split, has_nested_query, list_argument, list_param, outer_tree


@dataclass
class Database:
    db_id: str
    path: Path
    connection: sqlite3.Connection
    schema: Schema = field(default_factory=dict)

    @classmethod
    def open(cls, db_id: str, path: Path, time_limit_s: float = QUERY_TIME_LIMIT_S) -> Database:
        from worlds.sql.engine.bird_docs import with_docs
        from worlds.sql.engine.execute import open_readonly

        return cls(db_id, path, open_readonly(path, time_limit_s), with_docs(read_schema(path), path))


@dataclass(frozen=True)
class Verified:
    task: Task
    split: bool
    template: Parametrised
    """The whole query's literals, for augmentation."""


def run_function(connection: sqlite3.Connection, function: SqlFunction, arguments: Mapping[str, Any]) -> QueryResult:
    return run_query(connection, function.sql, function.bindings(dict(arguments)))


def verify_question(
    question: Question,
    db: Database,
    library: FunctionLibrary,
    world: str,
    overrides: Mapping[str, Any] | None = None,
    task_id: str | None = None,
) -> Verified | Rejection:
    """The question's task, its functions added to ``library``; or why it was left out. ``overrides`` swaps
    literal values (by slot) for augmentation: the SQL's result is then the overridden whole query's."""

    def reject(reason: str, detail: str = "") -> Rejection:
        return Rejection(
            index=question.index, db_id=question.db_id, question=question.question, sql=question.sql,
            reason=reason, detail=detail[:300],
        )  # fmt: skip

    try:
        template = parametrise(parse(question.sql, db.schema), db.schema)
    except GenerateError as error:
        return reject(error.reason, error.detail)
    values = {lit.slot: lit.value for lit in template.literals} | dict(overrides or {})
    whole = build_function(template.tree, db.db_id, template.literals, schema=db.schema)
    whole_args = {p.name: values[p.slot] for p in whole.params}
    try:
        expected = run_query(db.connection, question.sql) if overrides is None else None
        got = run_function(db.connection, whole, whole_args)
    except QueryError as error:
        return reject("sql_error", str(error))
    if expected is not None and not results_equal(expected, got, ordered=whole.ordered):
        return reject("whole_mismatch", "the parameterised query returns other rows than the SQL")
    expected = got
    paths: list[list[tuple[SqlFunction, dict[str, Any], str]]] = [[(whole, whole_args, "core")]]
    if has_nested_query(template.tree):
        point = find_split(template.tree)
        if isinstance(point, str):
            return reject("not_split", point)
        inner = build_function(point.inner, db.db_id, template.literals, schema=db.schema)
        inner_args = {p.name: values[p.slot] for p in inner.params}
        try:
            inner_result = run_function(db.connection, inner, inner_args)
        except QueryError as error:  # most often a correlated subquery: it names a column of the outer query
            return reject("inner_not_standalone", str(error))
        if point.kind == "scalar" and (
            len(inner_result.rows) != 1 or len(inner_result.columns) != 1 or inner_result.rows[0][0] is None
        ):
            return reject("scalar_inner_not_one_value", f"the inner query returns {len(inner_result.rows)} row(s)")
        # The inner function's own arguments are not this one's: name them as values, not as markers.
        what = re.sub(r"⟨[^⟩]*⟩", "a given value", Prose(PlainNamer(db.schema)).phrase(point.inner))
        extra = list_param(point, inner_result, db.schema, what)
        outer_query = outer_tree(template.tree, point, inner_result)
        outer = build_function(outer_query, db.db_id, template.literals, extra, schema=db.schema)
        fed = list_argument(point, inner_result)
        outer_args = {p.name: fed if p.slot == LIST_SLOT else values[p.slot] for p in outer.params}
        try:
            outer_result = run_function(db.connection, outer, outer_args)
        except QueryError as error:
            return reject("outer_error", str(error))
        if not results_equal(expected, outer_result, ordered=whole.ordered):
            return reject("outer_mismatch", "the outer query fed the inner's result returns other rows than the SQL")
        paths.append([(inner, inner_args, "support"), (outer, outer_args, "core")])
    gold = [[GoldCall(name=library.add(f).name, arguments=a, role=r) for f, a, r in path] for path in paths]
    text = question.question if not question.evidence else f"{question.question} (Note: {question.evidence})"
    answer = answer_value(expected)
    turn = Goal(
        user=UserIntent(explicit=text),
        gold=gold[0],
        alternatives=gold[1:],
        answer=answer,
        gold_answer=answer_text(answer),
    )
    tags = ["sql", question.db_id] + (["alt-path"] if len(gold) > 1 else [])
    task = Task(
        id=task_id or f"{question.db_id}_{question.index:04d}",
        world=world,
        description=f"Text-to-SQL question {question.index} on {question.db_id}: {question.sql}",
        tags=tags,
        goals=[turn],
    )
    return Verified(task=task, split=len(gold) > 1, template=template)


def answer_value(result: QueryResult) -> Any:
    """The exact answer: a one-column result as its values, any other as records."""
    return result.values() if len(result.columns) == 1 else result.records()


def answer_text(answer: Any) -> str:
    """A short rendering of the answer for replies and reports: "No results." when it is empty as the completion
    judge reads it (no rows, one row of nulls or blanks, or only blank strings), else its values, as stored."""
    values = [v for item in answer for v in (item.values() if isinstance(item, dict) else [item])]
    if all(_blank(v) and v is not None for v in values) or (len(answer) == 1 and all(map(_blank, values))):
        return "No results."
    items = [
        "; ".join(f"{k}: {v}" for k, v in item.items()) if isinstance(item, dict) else str(item) for item in answer
    ]
    return ", ".join(items) if all(not isinstance(i, dict) for i in answer) else " | ".join(items)


def _blank(value: Any) -> bool:
    """Null, or a string with nothing to read once accents and whitespace are gone."""
    if value is None:
        return True
    return (
        isinstance(value, str)
        and not "".join(c for c in unicodedata.normalize("NFKD", value) if not unicodedata.combining(c)).strip()
    )
