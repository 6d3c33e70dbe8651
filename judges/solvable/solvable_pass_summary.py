"""The run summary's solvable pass rate as StableToolBench reports it (``solvable_pass`` judge): the mean verdict
(solved 1, unsure 0.5, unsolved 0) over the judged goals of ToolBench tasks, the count of each verdict, and the
episodes nobody judged (no judge model): said, never counted as passes or failures."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, NamedTuple

from judges.common.reduction import EpisodeFacts, Reduction, RunFacts
from judges.common.stats import rate, wilson
from judges.common.summary_view import ci_text, pct
from judges.names import JudgeName
from judges.solvable.solvable_pass import VERDICTS
from sim.core import Score

LABEL = "solvable pass rate (StableToolBench judge)"
NOTE = (
    "solvable pass rate (StableToolBench judge): a judge model reads each ToolBench query, the calls made and the "
    "final answer, and says solved (1), unsure (0.5) or unsolved (0), as StableToolBench's solve rate counts them; "
    "its agreement with hand labels: squall judges calibrate --judge solvable_pass."
)
NOT_JUDGED_NOTE = (
    "solvable pass rate not judged on {n} ToolBench episodes: it needs a judge model (--judge-model MODEL); "
    "ToolBench queries have no gold arguments, so no rule-based judge can stand in."
)


class SolvableVerdicts(NamedTuple):
    total: float
    verdicts: tuple[str, ...]  # one per judged goal
    judged: bool


class SolvablePassSummary(Reduction[SolvableVerdicts]):
    judge = JudgeName.SOLVABLE_PASS
    label = LABEL

    def __init__(self) -> None:
        self.total = 0.0
        self.verdicts: Counter[str] = Counter()
        self.not_judged = 0

    def verdict(self, score: Score) -> SolvableVerdicts | None:
        if "judged" not in score.details:  # not a ToolBench task, or an unscoreable episode
            return None
        said = tuple(str(v) for v in (score.details.get("verdicts") or {}).values())
        return SolvableVerdicts(sum(v for v in score.per_goal if v is not None), said, bool(score.details["judged"]))

    def add(self, verdict: SolvableVerdicts, episode: EpisodeFacts) -> None:
        if not verdict.judged:
            self.not_judged += 1
            return
        self.total += verdict.total
        self.verdicts.update(verdict.verdicts)

    def result(self, run: RunFacts) -> dict[str, Any]:
        goals = sum(self.verdicts.values())
        if not goals and not self.not_judged:
            return {}
        return {
            JudgeName.SOLVABLE_PASS: rate(self.total, goals),
            "solvable_pass_ci95": wilson(self.total, goals),
            "solvable_pass_goals": goals,
            "solvable_pass_verdicts": {v: self.verdicts.get(v, 0) for v in VERDICTS},
            "solvable_pass_not_judged": self.not_judged,
        }

    @staticmethod
    def rows(summary: Mapping[str, Any]) -> list[list[str]]:
        s = summary
        goals, not_judged = s.get("solvable_pass_goals") or 0, s.get("solvable_pass_not_judged") or 0
        if not goals and not not_judged:
            return []
        if not goals:
            return [[LABEL, "not judged", "", f"{not_judged} episodes: needs --judge-model"]]
        counts = s.get("solvable_pass_verdicts") or {}
        over = f"{goals} goals ({', '.join(f'{counts.get(v, 0)} {v}' for v in VERDICTS)})"
        return [[LABEL, pct(s.get(JudgeName.SOLVABLE_PASS)), ci_text(s.get("solvable_pass_ci95")), over]]

    @staticmethod
    def notes(summary: Mapping[str, Any]) -> list[str]:
        notes = [NOTE] if summary.get("solvable_pass_goals") else []
        if n := summary.get("solvable_pass_not_judged"):
            notes.append(NOT_JUDGED_NOTE.format(n=n))
        return notes
