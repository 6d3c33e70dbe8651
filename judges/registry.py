"""Every judge a run can have, one line each: the judge, how the run builds it, and its part of the run summary.

The order is the order judges score in (it is part of a score set's configuration, so its hash: keep it), and the
order of their keys and headline rows. ``build``:
- ``matching``: built with the run's argument matcher, ``judge(matcher)``;
- ``plain``: built with nothing, ``judge()``;
- ``configured``: built only where the run's settings turn it on, with what they name (``sim.judging.judge_set``).

Adding a judge touches three files: ``<package>/<judge>.py`` (the judge) with ``<judge>_summary.py`` beside it (its
``Reduction``, if it has a summary of its own), its name in ``judges/names.py``, and one line here. The summary
(``judges.run.metrics``) and the reports read this tuple; nothing else names a judge's summary keys.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, NamedTuple

from judges.answers.answer_facts import AnswerFacts
from judges.answers.answer_facts_summary import AnswerFactsSummary
from judges.answers.answer_match_summary import AnswerMatchSummary
from judges.answers.answer_semantic import AnswerMatch
from judges.answers.clarification import ClarificationJudge
from judges.answers.completion import Completion
from judges.answers.completion_summary import CompletionSummary
from judges.bfcl.bfcl_ast import BfclAst
from judges.bfcl.bfcl_ast_summary import BfclAstSummary
from judges.bfcl.bfcl_multi_turn import BfclMultiTurn
from judges.bfcl.bfcl_multi_turn_summary import BfclMultiTurnSummary
from judges.calls.ast_check import AstChecker
from judges.calls.ast_summary import AstSummary
from judges.calls.call_f1 import CallF1
from judges.calls.call_f1_summary import CallF1Summary
from judges.calls.core_api import ConversationSuccess, CoreApiAccuracy
from judges.calls.core_api_summary import ConversationSuccessSummary, CoreApiAccuracySummary
from judges.calls.decline import DeclineJudge
from judges.calls.decline_summary import DeclineSummary
from judges.calls.failure_stage import FailureStage
from judges.calls.failure_stage_summary import FailureStageSummary
from judges.calls.injection import InjectionJudge
from judges.calls.injection_summary import InjectionSummary
from judges.calls.state import StateMatch
from judges.calls.state_summary import StateMatchSummary
from judges.common.reduction import Reduction
from judges.errors.error_handling import ErrorHandlingJudge
from judges.errors.error_handling_summary import ErrorHandlingSummary
from judges.names import JudgeName
from judges.solvable.solvable_pass import SolvablePass
from judges.solvable.solvable_pass_summary import SolvablePassSummary
from judges.tau2.tau2_reward import Tau2Reward
from judges.tau2.tau2_reward_summary import Tau2RewardSummary
from sim.core import Judge

Build = Literal["matching", "plain", "model", "configured"]


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
    JudgeEntry(JudgeName.CORE_API_ACCURACY, CoreApiAccuracy, "matching", CoreApiAccuracySummary),
    JudgeEntry(JudgeName.CONVERSATION_SUCCESS, ConversationSuccess, "matching", ConversationSuccessSummary),
    JudgeEntry(JudgeName.FAILURE_STAGE, FailureStage, "matching", FailureStageSummary),
    JudgeEntry(JudgeName.CALL_F1, CallF1, "matching", CallF1Summary),
    JudgeEntry(JudgeName.AST, AstChecker, "matching", AstSummary),
    JudgeEntry(JudgeName.BFCL_AST, BfclAst, "plain", BfclAstSummary),
    JudgeEntry(JudgeName.DECLINE, DeclineJudge, "plain", DeclineSummary),
    JudgeEntry(JudgeName.COMPLETION, Completion, "plain", CompletionSummary),
    JudgeEntry(JudgeName.CLARIFICATION, ClarificationJudge, "plain"),
    JudgeEntry(JudgeName.ANSWER_FACTS, AnswerFacts, "plain", AnswerFactsSummary),
    JudgeEntry(JudgeName.STATE_MATCH, StateMatch, "plain", StateMatchSummary),
    JudgeEntry(JudgeName.BFCL_MULTI_TURN, BfclMultiTurn, "plain", BfclMultiTurnSummary),
    JudgeEntry(JudgeName.TAU2_REWARD, Tau2Reward, "model", Tau2RewardSummary),
    JudgeEntry(JudgeName.INJECTION, InjectionJudge, "matching", InjectionSummary),
    JudgeEntry(JudgeName.SOLVABLE_PASS, SolvablePass, "model", SolvablePassSummary),
    JudgeEntry(JudgeName.ERROR_HANDLING, ErrorHandlingJudge, "configured", ErrorHandlingSummary),
    JudgeEntry(JudgeName.ANSWER_MATCH, AnswerMatch, "configured", AnswerMatchSummary),
)


def judge_entries() -> tuple[JudgeEntry, ...]:
    """The registered judges, read at call time (a test may register one more by patching ``JUDGES``)."""
    return JUDGES


def summaries() -> list[type[Reduction[Any]]]:
    """The registered judges' summary parts, in registry order."""
    return [e.summary for e in judge_entries() if e.summary is not None]
