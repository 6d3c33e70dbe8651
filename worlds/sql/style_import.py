"""Importing a question set in the SEL or SLOT style: one verified gold chain per question whose shape fits.

Every kept question's chain was run and reproduced the SQL's own result; every other question is in the report
with its reason (``shape:*`` when the query is not one the styles express, ``sel:*`` / ``slot:*`` when the style
cannot express or reproduce it).
"""

from __future__ import annotations

from collections import Counter

from sim.core import Goal, GoldCall, Task, UserIntent
from worlds.sql.execute import QueryError, QueryResult, for_question, run_query
from worlds.sql.formats import Question, SourceFormat
from worlds.sql.literals import GenerateError, parse
from worlds.sql.model import ImportedWorld, ImportOptions, ImportReport, Rejection
from worlds.sql.style_sel import SelLibrary, sel_chain
from worlds.sql.style_shape import read_shape
from worlds.sql.style_slot import SlotRuntime
from worlds.sql.style_slot_gold import slot_chain
from worlds.sql.verify import Database, answer_text, answer_value

STYLES = ("per_question", "sel", "slot")


def import_styled(
    source: SourceFormat, questions: list[Question], databases: dict[str, Database], options: ImportOptions
) -> ImportedWorld:
    if options.augment or options.obfuscate:
        raise ValueError(f"--augment and --obfuscate work with the per_question style only, not '{options.style}'")
    sel = SelLibrary()
    paths = {db_id: db.path for db_id, db in databases.items()}
    slot = SlotRuntime(paths, options.query_time_limit_s) if options.style == "slot" else None
    tasks: list[Task] = []
    rejections: list[Rejection] = []
    try:
        for question in questions:
            with for_question(question.index, question.sql):
                outcome = _chain(question, databases[question.db_id], sel, slot)
            if isinstance(outcome, Rejection):
                rejections.append(outcome)
                continue
            gold, expected = outcome
            tasks.append(_task(question, gold, answer_value(expected), options))
    finally:
        if slot is not None:
            slot.close()
    used = {task.tags[1] for task in tasks}
    functions = [f for f in sel.functions() if f.db_id in used]
    report = ImportReport(
        source=source,
        questions=len(questions),
        kept=len(tasks),
        rejected=len(rejections),
        split=0,
        functions=len(functions) if slot is None else len(slot.specs),
        rejected_by_reason=dict(sorted(Counter(r.reason for r in rejections).items())),
        rejections=rejections,
    )
    return ImportedWorld(
        name=options.world,
        functions=functions,
        tasks=tasks,
        # A SLOT world keeps every database: its public table names depend on which databases it serves.
        databases={db_id: db.path for db_id, db in databases.items() if slot is not None or db_id in used},
        report=report,
        style=options.style,
    )


def _chain(
    question: Question, db: Database, sel: SelLibrary, slot: SlotRuntime | None
) -> tuple[list[GoldCall], QueryResult] | Rejection:
    """The question's verified gold chain and the SQL's result, or why it was left out."""
    try:
        expected = run_query(db.connection, question.sql)
        shape = read_shape(parse(question.sql, db.schema), db.schema)
        if slot is not None:
            gold = slot_chain(shape, slot, db.db_id, expected)
        else:
            sel.add_database(db)
            gold = sel_chain(shape, db, sel, expected)
    except QueryError as error:
        return _rejection(question, "sql_error", str(error))
    except GenerateError as error:
        return _rejection(question, error.reason, error.detail)
    return gold, expected


def _rejection(question: Question, reason: str, detail: str) -> Rejection:
    return Rejection(
        index=question.index, db_id=question.db_id, question=question.question, sql=question.sql,
        reason=reason, detail=detail[:300],
    )  # fmt: skip


def _task(question: Question, gold: list[GoldCall], answer: object, options: ImportOptions) -> Task:
    text = question.question if not question.evidence else f"{question.question} (Note: {question.evidence})"
    turn = Goal(user=UserIntent(explicit=text), gold=gold, answer=answer, gold_answer=answer_text(answer))
    return Task(
        id=f"{question.db_id}_{question.index:04d}",
        world=options.world,
        description=f"Text-to-SQL question {question.index} on {question.db_id} ({options.style}): {question.sql}",
        tags=["sql", question.db_id, f"style:{options.style}"],
        goals=[turn],
    )
