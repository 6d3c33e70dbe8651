"""Calibration of the solvability judge: a judge model's verdicts on a hand-labelled set, against the labels.

The set (``judges/solvable/data/solvable_labels.jsonl``, one JSON object a line) holds ToolBench-style queries, the
calls made with what they returned, a final answer, its ``kind`` (solve, half-solve, refuse, hallucinate,
unverifiable), a person's label (solved / unsure / unsolved, as StableToolBench's statuses) and ``why``, one line.
Agreement is Cohen's kappa over the three verdicts (unweighted, and quadratic over solved > unsure > unsolved),
exact agreement, and per kind the share the judge got right (a judge that passes every confident answer shows it on
the hallucinated ones).
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judges.common.agreement import cohen_kappa, exact
from judges.common.labelled_rows import LabelsError, labelled_rows
from judges.common.llm_ask import JudgeModel, JudgeOutputError
from judges.solvable.solvable_pass import VERDICTS, judge_answer

LABELS_PATH = Path(__file__).parent / "data" / "solvable_labels.jsonl"
KINDS = ("solve", "half-solve", "refuse", "hallucinate", "unverifiable")
_TEXT_FIELDS = ("kind", "query", "trajectory", "answer", "label", "why")


@dataclass(frozen=True)
class LabelledAnswer:
    id: str
    kind: str
    query: str
    trajectory: str
    answer: str
    label: str


def _check(where: str, row: dict[str, Any]) -> None:
    if row["label"] not in VERDICTS:
        raise LabelsError(f"{where}: field 'label' must be one of {', '.join(VERDICTS)}, not {row['label']!r}")
    if row["kind"] not in KINDS:
        raise LabelsError(f"{where}: field 'kind' must be one of {', '.join(KINDS)}, not {row['kind']!r}")


def load_labels(path: Path = LABELS_PATH) -> list[LabelledAnswer]:
    cases = [
        LabelledAnswer(row["id"], row["kind"], row["query"], row["trajectory"] or "(no tool calls)", row["answer"],
                       row["label"])
        for row in labelled_rows(path, _TEXT_FIELDS, _check)
    ]  # fmt: skip
    if not cases:
        raise LabelsError(f"{path}: no labelled answers")
    return cases


async def calibrate(
    cases: Sequence[LabelledAnswer], model: JudgeModel, on_case: Callable[[], None] | None = None
) -> dict[str, Any]:
    """The judge's verdict on every case, and its agreement with the labels over the cases it gave one on (a case
    with no usable verdict after the retries is counted apart: ``unusable``)."""
    given: dict[str, str] = {}
    reasons: dict[str, str] = {}
    for case in cases:
        with contextlib.suppress(JudgeOutputError):
            verdict = await judge_answer(model, case.query, case.trajectory, case.answer)
            given[case.id], reasons[case.id] = verdict.verdict, verdict.reasons
        if on_case is not None:
            on_case()
    both = [c for c in cases if c.id in given]
    labels, said = [c.label for c in both], [given[c.id] for c in both]
    by_kind = {
        kind: {"n": len(of), "agree": sum(given[c.id] == c.label for c in of)}
        for kind in KINDS
        if (of := [c for c in both if c.kind == kind])
    }
    return {
        "model": model.model,
        "cases": len(cases),
        "labels": dict(Counter(c.label for c in cases)),
        "unusable": len(cases) - len(both),
        "n": len(both),
        "kappa": cohen_kappa(labels, said, VERDICTS) if both else None,
        "kappa_quadratic": cohen_kappa(labels, said, VERDICTS, "quadratic") if both else None,
        "exact": exact(labels, said) if both else None,
        "by_kind": by_kind,
        "confusion": {
            label: dict(Counter(s for x, s in zip(labels, said, strict=True) if x == label)) for label in VERDICTS
        },
        "verdicts": given,
        "reasons": reasons,
    }
