"""Every judge's name: ``Score.judge`` of its verdicts and the key of its part of the run summary.

Plain strings (a ``Score`` built from one needs no conversion, and stored runs hold the same text); code outside a
judge names a judge through these, never by a literal (``tests/judges/test_judge_names.py`` checks ``sim/``)."""

from __future__ import annotations

from typing import Final


class JudgeName:
    """The judges' names, as constants."""

    CORE_API_ACCURACY: Final = "core_api_accuracy"
    CONVERSATION_SUCCESS: Final = "conversation_success"
    FAILURE_STAGE: Final = "failure_stage"
    CALL_F1: Final = "call_f1"
    AST: Final = "ast"
    BFCL_AST: Final = "bfcl_ast"
    DECLINE: Final = "decline"
    COMPLETION: Final = "completion"
    CLARIFICATION: Final = "clarification"
    ANSWER_FACTS: Final = "answer_facts"
    STATE_MATCH: Final = "state_match"
    BFCL_MULTI_TURN: Final = "bfcl_multi_turn"
    TAU2_REWARD: Final = "tau2_reward"
    INJECTION: Final = "injection"
    SOLVABLE_PASS: Final = "solvable_pass"
    ERROR_HANDLING: Final = "error_handling"
    ANSWER_MATCH: Final = "answer_match"


def judge_names() -> tuple[str, ...]:
    """Every name above, in declaration order."""
    return tuple(value for key, value in vars(JudgeName).items() if key.isupper())
