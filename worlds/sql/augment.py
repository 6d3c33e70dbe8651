"""More tasks from the same questions: a literal swapped for another value of its column.

Only an equality with a column (``country = 'France'``) whose value the question spells out is swapped, so the
question can be rewritten with the new value. The new task goes through the same verification as the original
(every path must give the whole query's result), and a swap that finds nothing is dropped: an empty answer says
little about an agent.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from sim.core import Task
from worlds.sql.execute import Column, QueryError, distinct_values, for_question
from worlds.sql.formats import Question
from worlds.sql.functions import FunctionLibrary
from worlds.sql.model import Rejection
from worlds.sql.verify import Database, Verified, verify_question

_CANDIDATES = 20


def augment_tasks(
    kept: Sequence[tuple[Question, Verified]],
    databases: Mapping[str, Database],
    library: FunctionLibrary,
    world: str,
    per_question: int,
    seed: int,
) -> list[Task]:
    rng = random.Random(seed)
    tasks: list[Task] = []
    for question, verified in kept:
        with for_question(question.index, question.sql):
            tasks.extend(_augment_one(question, verified, databases[question.db_id], library, world, per_question, rng))
    return tasks


def _augment_one(
    question: Question,
    verified: Verified,
    db: Database,
    library: FunctionLibrary,
    world: str,
    per_question: int,
    rng: random.Random,
) -> list[Task]:
    """Up to ``per_question`` verified variants of one question."""
    tasks: list[Task] = []
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
            outcome = verify_question(replace(question, question=text), db, library, world, {lit.slot: value}, task_id)
            if isinstance(outcome, Rejection) or not outcome.task.goals[0].answer:
                continue
            note = f" (augmented: {lit.value!r} -> {value!r})"
            update = {"tags": [*outcome.task.tags, "augmented"], "description": outcome.task.description + note}
            tasks.append(outcome.task.model_copy(update=update))
            made += 1
            if made >= per_question:
                break
    return tasks


def _mention(value: object, text: str) -> re.Pattern[str] | None:
    """A pattern for the value as the question writes it (whole word, any case), if it does."""
    if not isinstance(value, str | int) or isinstance(value, bool) or len(str(value).strip()) < 3:
        return None  # a code like 'F' carries meaning the question words elsewhere ("female"): leave it
    pattern = re.compile(rf"(?<!\w){re.escape(str(value))}(?!\w)", re.IGNORECASE)
    return pattern if pattern.search(text) else None
