"""More tasks from the same questions: a join's nested variant, and a literal swapped for another value of its column.

A join question whose nested variant (``nest``) returns the same rows becomes a second task with two solution
paths, as the study's benchmark has for every question; literal swaps then apply to the variants too.

Only an equality with a column (``country = 'France'``) whose value the question spells out is swapped, so the
question can be rewritten with the new value. The new task goes through the same verification as the original
(every path must give the whole query's result), and a swap that finds nothing (no rows, or an aggregate's NULLs)
or more rows than the import's ``max_rows`` is dropped, as the quality filters drop such questions.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from sim.core import Task
from worlds.sql.engine.execute import Column, QueryError, distinct_values, results_equal, run_query
from worlds.sql.engine.formats import Question
from worlds.sql.engine.model import Rejection
from worlds.sql.ingest.nest import nested_variant
from worlds.sql.query.functions import FunctionLibrary
from worlds.sql.query.literals import GenerateError, parse
from worlds.sql.query.verify import Database, Verified, verify_question

_CANDIDATES = 20


def augment_tasks(
    kept: Sequence[tuple[Question, Verified]],
    databases: Mapping[str, Database],
    library: FunctionLibrary,
    world: str,
    per_question: int,
    seed: int,
    max_rows: int | None = None,
) -> list[Task]:
    rng = random.Random(seed)
    variants = nested_variants(kept, databases, library, world)
    tasks: list[Task] = [_tagged(v.task, "nested variant of a join", "nested-variant") for _, v in variants]
    for question, verified in [*kept, *variants]:
        db = databases[question.db_id]
        made = 0
        taken = {lit.value for lit in verified.template.literals}
        for lit in verified.template.literals:
            pattern = _mention(lit.value, question.question)
            if made >= per_question or not lit.swappable or lit.column is None or pattern is None:
                continue
            try:
                values = distinct_values(db.connection, Column(lit.column.table, lit.column.name, ""), limit=500)
            except QueryError:
                continue
            candidates = [v for v in values if type(v) is type(lit.value) and v not in taken]
            rng.shuffle(candidates)
            for value in candidates[:_CANDIDATES]:
                text = pattern.sub(str(value).replace("\\", "\\\\"), question.question, count=1)
                task_id = f"{verified.task.id}_aug{made + 1}"
                outcome = verify_question(
                    replace(question, question=text), db, library, world, {lit.slot: value}, task_id
                )
                if isinstance(outcome, Rejection) or not kept_answer(outcome.task.goals[0].answer, max_rows):
                    continue
                tasks.append(_tagged(outcome.task, f"{lit.value!r} -> {value!r}"))
                made += 1
                if made >= per_question:
                    break
    return tasks


def nested_variants(
    kept: Sequence[tuple[Question, Verified]], databases: Mapping[str, Database], library: FunctionLibrary, world: str
) -> list[tuple[Question, Verified]]:
    """The two-path tasks of the single-path join questions whose nested variant returns the original's rows."""
    found: list[tuple[Question, Verified]] = []
    for question, verified in kept:
        if verified.split:
            continue
        db = databases[question.db_id]
        try:
            tree = parse(question.sql, db.schema)
        except GenerateError:
            continue
        variant = nested_variant(tree, db.schema)
        if variant is None:
            continue
        sql = variant.sql(dialect="sqlite")
        try:
            same = results_equal(run_query(db.connection, question.sql), run_query(db.connection, sql),
                                 ordered=tree.args.get("order") is not None)  # fmt: skip
        except QueryError:
            continue
        if not same:
            continue
        nested = replace(question, sql=sql)
        outcome = verify_question(nested, db, library, world, task_id=f"{verified.task.id}_nested")
        if isinstance(outcome, Verified) and outcome.split and outcome.task.goals[0].answer:
            found.append((nested, outcome))
    return found


def _tagged(task: Task, note: str, *tags: str) -> Task:
    update = {"tags": [*task.tags, "augmented", *tags], "description": f"{task.description} (augmented: {note})"}
    return task.model_copy(update=update)


def kept_answer(answer: Any, max_rows: int | None) -> bool:
    """Not empty (no rows, or an aggregate's row of NULLs) and at most ``max_rows`` rows: the import's filters."""
    if not answer or (len(answer) == 1 and all(v is None for v in _values(answer[0]))):
        return False
    return max_rows is None or len(answer) <= max_rows


def _values(item: Any) -> list[Any]:
    return list(item.values()) if isinstance(item, dict) else [item]


def _mention(value: object, text: str) -> re.Pattern[str] | None:
    """A pattern for the value as the question writes it (whole word, any case), if it does."""
    if not isinstance(value, str | int) or isinstance(value, bool) or len(str(value).strip()) < 3:
        return None  # a code like 'F' carries meaning the question words elsewhere ("female"): leave it
    pattern = re.compile(rf"(?<!\w){re.escape(str(value))}(?!\w)", re.IGNORECASE)
    return pattern if pattern.search(text) else None
