"""Every judge a run can have, one line each: the judge, how the run builds it, and its part of the run summary.

The order is the order judges score in (it is part of a score set's configuration, so its hash: keep it), and the
order of their keys and headline rows. ``build``:
- ``matching``: built with the run's argument matcher, ``judge(matcher)``;
- ``plain``: built with nothing, ``judge()``;
- ``configured``: built only where the run's settings turn it on, with what they name (``sim.judging.judge_set``).

Adding a judge: its file (the judge and its ``Reduction``) and one line here. The summary (``judges.metrics``) and
the reports read this tuple; nothing else names a judge's summary keys.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, NamedTuple

from judges.answer_facts import AnswerFacts
from judges.answer_metrics import AnswerFactsSummary, CallF1Summary, CompletionSummary
from judges.answer_semantic import AnswerMatch
from judges.ast_check import AstChecker
from judges.bfcl_ast import BfclAst
from judges.bfcl_ast_summary import BfclAstSummary
from judges.bfcl_multi_turn import BfclMultiTurn
from judges.bfcl_multi_turn_summary import BfclMultiTurnSummary
from judges.call_f1 import CallF1
from judges.clarification import ClarificationJudge
from judges.completion import Completion
from judges.core_api import ConversationSuccess, CoreApiAccuracy
from judges.core_metrics import ConversationSuccessSummary, CoreApiAccuracySummary
from judges.decline import DeclineJudge
from judges.error_handling import ErrorHandlingJudge
from judges.failure_stage import FailureStage
from judges.quality_metrics import AnswerMatchSummary, AstSummary, ErrorHandlingSummary, StateMatchSummary
from judges.reduction import Reduction
from judges.state import StateMatch
from judges.stress_metrics import DeclineSummary, FailureStageSummary
from judges.tau2_reward import Tau2Reward
from judges.tau2_reward_summary import Tau2RewardSummary
from sim.core import Judge

Build = Literal["matching", "plain", "configured"]


class JudgeEntry(NamedTuple):
    name: str
    """``Score.judge`` of the judge's scores."""
    judge: Callable[..., Judge]
    """The judge's class."""
    build: Build
    summary: type[Reduction[Any]] | None = None
    """How its verdicts reduce over a run, and what the reports show of them; None: it has no summary of its own
    (a section built elsewhere reads its scores: clarification, in the per-user table)."""


JUDGES: tuple[JudgeEntry, ...] = (
    JudgeEntry("core_api_accuracy", CoreApiAccuracy, "matching", CoreApiAccuracySummary),
    JudgeEntry("conversation_success", ConversationSuccess, "matching", ConversationSuccessSummary),
    JudgeEntry("failure_stage", FailureStage, "matching", FailureStageSummary),
    JudgeEntry("call_f1", CallF1, "matching", CallF1Summary),
    JudgeEntry("ast", AstChecker, "matching", AstSummary),
    JudgeEntry("bfcl_ast", BfclAst, "plain", BfclAstSummary),
    JudgeEntry("decline", DeclineJudge, "plain", DeclineSummary),
    JudgeEntry("completion", Completion, "plain", CompletionSummary),
    JudgeEntry("clarification", ClarificationJudge, "plain"),
    JudgeEntry("answer_facts", AnswerFacts, "plain", AnswerFactsSummary),
    JudgeEntry("state_match", StateMatch, "plain", StateMatchSummary),
    JudgeEntry("bfcl_multi_turn", BfclMultiTurn, "plain", BfclMultiTurnSummary),
    JudgeEntry("tau2_reward", Tau2Reward, "plain", Tau2RewardSummary),
    JudgeEntry("error_handling", ErrorHandlingJudge, "configured", ErrorHandlingSummary),
    JudgeEntry("answer_match", AnswerMatch, "configured", AnswerMatchSummary),
)


def judge_entries() -> tuple[JudgeEntry, ...]:
    """The registered judges, read at call time (a test may register one more by patching ``JUDGES``)."""
    return JUDGES


def summaries() -> list[type[Reduction[Any]]]:
    """The registered judges' summary parts, in registry order."""
    return [e.summary for e in judge_entries() if e.summary is not None]
