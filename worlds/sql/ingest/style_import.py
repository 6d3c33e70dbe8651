"""Importing a question set in the SEL or SLOT style: one verified gold chain per question whose shape fits.

Every kept question's chain was run and reproduced the SQL's own result; every other question is in the report
with its reason (``shape:*`` when the query is not one the styles express, ``sel:*`` / ``slot:*`` when the style
cannot express or reproduce it).

A SEL task offers only its database's functions and those of its own joined table (``Goal.tools``), as the
API-styles study gives each question its database's tools: the world holds every database's functions (2,896 on
the shared Spider sample), and a toolkit of all of them would test search over unrelated databases instead.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from sim.core import Goal, GoldCall, Task, UserIntent
from worlds.sql.engine.execute import QueryError, run_query
from worlds.sql.engine.formats import Question, SourceFormat
from worlds.sql.engine.model import ImportedWorld, ImportOptions, ImportReport, Rejection
from worlds.sql.query.literals import GenerateError, parse
from worlds.sql.query.verify import Database, answer_text, answer_value
from worlds.sql.styles.style_sel import SelLibrary
from worlds.sql.styles.style_sel_gold import sel_chain
from worlds.sql.styles.style_shape import read_shape
from worlds.sql.styles.style_slot import SlotRuntime
from worlds.sql.styles.style_slot_gold import Initial, slot_chain


def import_styled(
    source: SourceFormat, questions: list[Question], databases: dict[str, Database], options: ImportOptions
) -> ImportedWorld:
    sel = SelLibrary()
    paths = {db_id: db.path for db_id, db in databases.items()}
    slot = SlotRuntime(paths, options.query_time_limit_s) if options.style == "slot" else None
    tasks: list[Task] = []
    rejections: list[Rejection] = []
    initial: dict[str, dict[str, Any]] = {}
    joins: set[tuple[str, str]] = set()
    sources: list[tuple[str, str | None]] = []
    """Each kept task's database and joined table (None: none), for its SEL toolkit."""
    for question in questions:
        db = databases[question.db_id]
        try:
            expected = run_query(db.connection, question.sql)
            shape = read_shape(parse(question.sql, db.schema), db.schema)
            if slot is not None:
                if shape.join is not None and options.obfuscate:
                    # SLOT's joined table names its columns `table.column`: obfuscated, it would show them.
                    raise GenerateError("join:obfuscated", "an obfuscated SLOT world keeps no join question")
                gold = slot_chain(shape, slot, db.db_id, expected)
            else:
                sel.add_database(db)
                gold = sel_chain(shape, db, sel, expected)
        except QueryError as error:
            rejections.append(_rejection(question, "sql_error", str(error)))
            continue
        except GenerateError as error:
            rejections.append(_rejection(question, error.reason, error.detail))
            continue
        tasks.append(_task(question, gold, answer_value(expected), options))
        join = f"join:{shape.join.name.lower()}" if shape.join is not None else None
        sources.append((db.db_id, join))
        if shape.join is not None:  # the initialisation step: SLOT's r1; SEL's functions of the joined table
            initial[tasks[-1].id] = Initial(db.db_id, shape.join).to_json()
            joins.add((db.db_id, f"join:{shape.join.name.lower()}"))
    if slot is not None:
        if options.obfuscate:
            from worlds.sql.describe.slot_obfuscate import SlotNames

            tasks = SlotNames.build(slot.specs, list(slot.tables), options.seed).rename_tasks(tasks)
        slot.close()
    used = {task.tags[1] for task in tasks}
    functions = [f for f in sel.functions(joins) if f.db_id in used]
    if slot is None:
        tasks = [_with_toolkit(task, sel_toolkit(sel, *source)) for task, source in zip(tasks, sources, strict=True)]
    if options.obfuscate and slot is None:
        from worlds.sql.describe.obfuscate import obfuscate_world

        functions, tasks = obfuscate_world(functions, tasks, options.seed, databases)
    report = ImportReport(
        source=source,
        questions=len(questions),
        kept=len(tasks),
        rejected=len(rejections),
        split=0,
        functions=len(functions) if slot is None else len(slot.specs),
        toolkit_mean=mean_toolkit(tasks, len(functions) if slot is None else len(slot.specs)),
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
        initial=initial if slot is not None else {},
        obfuscate_seed=options.seed if options.obfuscate and slot is not None else None,
    )


def sel_toolkit(library: SelLibrary, db_id: str, join: str | None) -> list[str]:
    """A SEL question's functions: its database's (tables, intersections, counts, aggregates over values) and,
    for a question that joins tables, its own joined table's; never another database's or another join's."""
    joins = {(db_id, join)} if join is not None else set()
    return [f.name for f in library.functions(joins) if f.db_id == db_id]


def _with_toolkit(task: Task, tools: list[str]) -> Task:
    return task.model_copy(update={"goals": [goal.model_copy(update={"tools": tools}) for goal in task.goals]})


def mean_toolkit(tasks: list[Task], world_size: int) -> float | None:
    """Mean functions a goal offers (its ``Goal.tools``, else the whole world); None without a goal."""
    sizes = [len(goal.tools) if goal.tools is not None else world_size for task in tasks for goal in task.goals]
    return round(sum(sizes) / len(sizes), 1) if sizes else None


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
