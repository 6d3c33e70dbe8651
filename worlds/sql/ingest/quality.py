"""The import's quality filters, as the study that built the Spider tool-use set applied them (seed 001): drop
questions whose SQL returns nothing (no rows, or an aggregate's row of NULLs) and questions whose SQL returns more
than 100 rows (too long to read in a tool result); optionally keep only questions with two solution paths.

Each filter is an option (``ImportOptions``) with the study's default; a question it drops is a rejection with its
reason, so ``kept + rejected == questions`` still holds and ``import_report.json`` counts each filter. The result
filters run the question's own SQL once, before any style sees it, so they mean the same in every style; a query
that fails here is left to verification, which reports why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from worlds.sql.engine.execute import QueryError, run_query
from worlds.sql.engine.formats import Question
from worlds.sql.engine.model import ImportOptions, ImportReport, Rejection
from worlds.sql.query.verify import Database

EMPTY_RESULT = "empty_result"
OVER_MAX_ROWS = "over_max_rows"
SINGLE_PATH = "single_path"
FILTER_REASONS = (EMPTY_RESULT, OVER_MAX_ROWS, SINGLE_PATH)


def screen(
    questions: Sequence[Question], databases: Mapping[str, Database], options: ImportOptions
) -> tuple[list[Question], list[Rejection]]:
    """The questions the result filters keep, and a rejection for each one they drop."""
    if not options.drop_empty and options.max_rows is None:
        return list(questions), []
    kept: list[Question] = []
    dropped: list[Rejection] = []
    for question in questions:
        try:
            rows = run_query(databases[question.db_id].connection, question.sql).rows
        except QueryError:
            kept.append(question)
            continue
        if options.drop_empty and (not rows or (len(rows) == 1 and all(v is None for v in rows[0]))):
            dropped.append(rejection(question, EMPTY_RESULT, "the SQL returns no rows" if not rows else "only NULLs"))
        elif options.max_rows is not None and len(rows) > options.max_rows:
            dropped.append(rejection(question, OVER_MAX_ROWS, f"the SQL returns {len(rows)} rows"))
        else:
            kept.append(question)
    return kept, dropped


def rejection(question: Question, reason: str, detail: str) -> Rejection:
    return Rejection(
        index=question.index, db_id=question.db_id, question=question.question, sql=question.sql,
        reason=reason, detail=detail,
    )  # fmt: skip


def with_screened(report: ImportReport, total: int, dropped: list[Rejection], options: ImportOptions) -> ImportReport:
    """The import's report over every question read: the screened-out ones as rejections, each filter counted."""
    rejections = sorted([*dropped, *report.rejections], key=lambda r: r.index)
    reasons = dict(report.rejected_by_reason)
    for r in dropped:
        reasons[r.reason] = reasons.get(r.reason, 0) + 1
    return report.model_copy(
        update={
            "questions": total,
            "rejected": report.rejected + len(dropped),
            "rejected_by_reason": dict(sorted(reasons.items())),
            "rejections": rejections,
            "filters": {
                "drop_empty": options.drop_empty,
                "max_rows": options.max_rows,
                "only_split": options.only_split,
            },
            "filtered": {reason: reasons.get(reason, 0) for reason in FILTER_REASONS},
        }
    )
