"""A text-to-SQL question set to a world in memory: functions, verified tasks and the import report."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path

from sim.core import Task
from worlds.sql.engine.execute import QueryLimitError
from worlds.sql.engine.formats import FormatError, Question, SourceFormat, check_databases, read_questions
from worlds.sql.engine.model import ImportedWorld, ImportOptions, ImportReport, Rejection
from worlds.sql.ingest.quality import SINGLE_PATH, rejection, screen, with_screened
from worlds.sql.ingest.style_import import import_styled
from worlds.sql.query.functions import FunctionLibrary
from worlds.sql.query.verify import Database, Verified, verify_question


def import_world(
    source: SourceFormat, db_dir: Path, questions_file: Path, options: ImportOptions | None = None
) -> ImportedWorld:
    """Raises FormatError on input that does not follow the format; bad questions are rejected, not raised."""
    options = options or ImportOptions()
    questions = read_questions(questions_file, source)
    if options.db_ids is not None:
        questions = [q for q in questions if q.db_id in options.db_ids]
    paths = check_databases(db_dir, questions, questions_file)
    limit = options.query_time_limit_s
    databases = {db_id: Database.open(db_id, path, limit) for db_id, path in paths.items()}
    try:
        screened, dropped = screen(questions, databases, options)
        if options.style != "per_question":
            world = import_styled(source, screened, databases, options)
        else:
            world = _import(source, screened, databases, options)
        return replace(world, report=with_screened(world.report, len(questions), dropped, options))
    except QueryLimitError as error:  # the whole set is refused: another question may hang the same way
        asked = next((q for q in questions if q.sql == error.sql), None)  # its own SQL runs before any derived one
        where = f"{questions_file}[{asked.index}]" if asked is not None else str(questions_file)
        raise FormatError(f"{where}: {error} (SQL: {error.sql[:200]})") from None
    finally:
        for db in databases.values():
            db.connection.close()


def _import(
    source: SourceFormat, questions: list[Question], databases: dict[str, Database], options: ImportOptions
) -> ImportedWorld:
    library = FunctionLibrary()
    tasks: list[Task] = []
    rejections: list[Rejection] = []
    kept: list[tuple[Question, Verified]] = []
    for question in questions:
        if options.only_split:  # verified apart first, so a dropped question adds no function to the world
            probe = verify_question(question, databases[question.db_id], FunctionLibrary(), options.world)
            if not isinstance(probe, Rejection) and not probe.split:
                rejections.append(rejection(question, SINGLE_PATH, "one solution path (only_split)"))
                continue
        outcome = verify_question(question, databases[question.db_id], library, options.world)
        if isinstance(outcome, Rejection):
            rejections.append(outcome)
            continue
        tasks.append(outcome.task)
        kept.append((question, outcome))
    augmented = 0
    if options.augment > 0:
        from worlds.sql.ingest.augment import augment_tasks

        extra = augment_tasks(kept, databases, library, options.world, options.augment, options.seed, options.max_rows)
        tasks.extend(extra)
        augmented = len(extra)
    functions = library.functions()
    if options.obfuscate:
        from worlds.sql.describe.obfuscate import obfuscate_world

        functions, tasks = obfuscate_world(functions, tasks, options.seed, databases)
    reasons = Counter(r.reason if r.reason != "not_split" else f"not_split:{r.detail}" for r in rejections)
    report = ImportReport(
        source=source,
        questions=len(questions),
        kept=len(kept),
        rejected=len(rejections),
        split=sum(1 for _, v in kept if v.split),
        augmented=augmented,
        functions=len(functions),
        rejected_by_reason=dict(sorted(reasons.items())),
        rejections=rejections,
    )
    used = {q.db_id for q, _ in kept}
    return ImportedWorld(
        name=options.world,
        functions=functions,
        tasks=tasks,
        databases={db_id: db.path for db_id, db in databases.items() if db_id in used},
        report=report,
    )
