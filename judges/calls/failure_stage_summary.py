"""The run summary's numbers of the ``failure_stage`` judge: the first stage that went wrong, per wrong goal.

Per scored episode only a few numbers are kept (the verdict type below).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from judges.common.reduction import EpisodeFacts, Reduction, RunFacts
from judges.common.summary_view import Section, share_section
from judges.names import JudgeName
from sim.core import Score

STAGES = ("search", "identification", "chaining", "tool_use", "execution", "not_played")
"""The failure_stage judge's labels, in pipeline order (see ``judges.calls.failure_stage``)."""


def stage_verdict(score: Score) -> tuple[str, ...] | None:
    """The stage of each wrong goal (interned: a handful of distinct strings)."""
    if score.judge_fault:
        return None
    return tuple(sys.intern(str(s)) for s in score.details.get("stages") or () if s is not None)


class FailureStageSummary(Reduction[tuple[str, ...]]):
    judge = JudgeName.FAILURE_STAGE
    label = "failure stages"

    def __init__(self) -> None:
        self.stages = dict.fromkeys(STAGES, 0)

    def verdict(self, score: Score) -> tuple[str, ...] | None:
        return stage_verdict(score)

    def add(self, verdict: tuple[str, ...], episode: EpisodeFacts) -> None:
        for stage in verdict:
            self.stages[stage] = self.stages.get(stage, 0) + 1

    def result(self, run: RunFacts) -> dict[str, Any]:
        return {"failure_stages": self.stages}

    @staticmethod
    def sections(summary: Mapping[str, Any]) -> list[Section]:
        return share_section("failure_stages", summary.get("failure_stages"), "failure stages (wrong goals)", "stage")
