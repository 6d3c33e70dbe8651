"""Calibration of the error-handling judge: its raters against a hand-labelled set, and against each other.

The set (``judges/errors/data/error_handling_labels.jsonl``, one JSON object a line) holds replies to failures with a
person's 1-5 label, the scenario's reference response and criteria. Agreement is Cohen's kappa, unweighted and
quadratic-weighted (a 4 for a 5 is a smaller miss than a 1 for a 5), beside plain exact and within-one agreement.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judges.common.agreement import cohen_kappa as agreement_kappa
from judges.common.labelled_rows import LabelsError, labelled_rows
from judges.errors.error_handling import ErrorCase, Rater

LABELS_PATH = Path(__file__).parent / "data" / "error_handling_labels.jsonl"
SCORES = (1, 2, 3, 4, 5)
_TEXT_FIELDS = ("user_request", "error", "reference_response", "reply")


@dataclass(frozen=True)
class LabelledCase:
    id: str
    case: ErrorCase
    label: int


def _check(where: str, row: dict[str, Any]) -> None:
    label = row.get("label")
    if isinstance(label, bool) or label not in SCORES:
        raise LabelsError(f"{where}: field 'label' must be 1-5, not {label!r}")
    criteria = row.get("criteria", [])
    if not isinstance(criteria, list) or not all(isinstance(c, str) for c in criteria):
        raise LabelsError(f"{where}: field 'criteria' must be a list of strings")


def load_labels(path: Path = LABELS_PATH) -> list[LabelledCase]:
    cases = []
    for row in labelled_rows(path, _TEXT_FIELDS, _check):
        case = ErrorCase(
            goal=0,
            request=row["user_request"],
            error=row["error"],
            reply=row["reply"],
            reference=row["reference_response"],
            criteria=tuple(row.get("criteria", [])),
        )
        cases.append(LabelledCase(row["id"], case, int(row["label"])))
    if not cases:
        raise LabelsError(f"{path}: no labelled cases")
    return cases


def cohen_kappa(a: Sequence[int], b: Sequence[int], weights: str | None = None) -> float | None:
    """Cohen's kappa of two raters over the 1-5 scale (``judges.common.agreement``)."""
    return agreement_kappa(a, b, SCORES, weights)


def agreement(a: Sequence[int], b: Sequence[int]) -> dict[str, Any]:
    n = len(a)
    return {
        "n": n,
        "kappa": cohen_kappa(a, b),
        "kappa_quadratic": cohen_kappa(a, b, "quadratic"),
        "exact": round(sum(x == y for x, y in zip(a, b, strict=True)) / n, 4),
        "within_one": round(sum(abs(x - y) <= 1 for x, y in zip(a, b, strict=True)) / n, 4),
    }


async def calibrate(
    cases: Sequence[LabelledCase], raters: Sequence[Rater], on_case: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Every rater's scores on the set; agreement of each with the labels and of each pair of raters, over the
    cases both scored (a rater that gave no usable verdict on a case — a judge fault in a run — is counted).
    ``on_case(mode)`` is called after each case a rater has rated (progress)."""
    from judges.errors.error_handling_llm import JudgeOutputError

    labels = {c.id: c.label for c in cases}
    scores: dict[str, dict[str, int]] = {}
    unusable: dict[str, int] = {}
    for rater in raters:
        given: dict[str, int] = {}
        for c in cases:
            with contextlib.suppress(JudgeOutputError):
                given[c.id] = (await rater.rate(c.case)).score
            if on_case is not None:
                on_case(rater.mode)
        scores[rater.mode], unusable[rater.mode] = given, len(cases) - len(given)
    modes = list(scores)
    return {
        "cases": len(cases),
        "labels": {str(s): list(labels.values()).count(s) for s in SCORES},
        "unusable": unusable,
        "vs_labels": {mode: _agreement(scores[mode], labels) for mode in modes},
        "between": {
            f"{x} vs {y}": _agreement(scores[x], scores[y]) for i, x in enumerate(modes) for y in modes[i + 1 :]
        },
        "scores": scores,
    }


def _agreement(a: dict[str, int], b: dict[str, int]) -> dict[str, Any] | None:
    both = [k for k in a if k in b]
    return agreement([a[k] for k in both], [b[k] for k in both]) if both else None
