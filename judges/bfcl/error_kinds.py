"""The study's error types (seed 004's breakdown) for a failed goal, from the AST judges' error codes.

One kind per failed goal, so a condition's kinds add up to its failures: ``bfcl_ast`` gives one BFCL reason per
entry; ``ast`` may list several codes for a goal, and the first kind in ``KINDS`` order among them is the goal's
(an unreadable call before a wrong function, a wrong function before its arguments).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from judges.calls.ast_check import reason_of
from judges.names import JudgeName
from sim.core import Score

KINDS = (
    "wrong syntax",
    "no call",
    "wrong function",
    "extra call",
    "missing call",
    "wrong number of calls",
    "missing/extra argument",
    "wrong argument value",
    "other",
)
"""Wrong syntax: a call that could not be read. No call / extra call / missing call: none, more or fewer calls than
the gold's (``wrong number of calls`` where the judge does not say which). Missing/extra argument: a required or
accepted parameter left out, or one the function or the gold lacks. Wrong argument value: a value of the wrong type
or not among the accepted ones. Other: what fits none (the gold function taken away by a stressor)."""

_ARGUMENT = frozenset({"missing_required", "missing_optional", "unexpected_param"})
_BFCL = {
    "decoder_failed": "wrong syntax",
    "wrong_func_name": "wrong function",
    "relevance:no_call": "no call",
    "irrelevance:called": "extra call",
}
_AST = {
    "instruction_format": "wrong syntax",
    "hallucinated_function": "wrong function",
    "wrong_function": "wrong function",
    "wrong_count": "wrong number of calls",
}


def _reason_kind(reason: str) -> str:
    if reason in _ARGUMENT:
        return "missing/extra argument"
    if reason.startswith(("value_error", "type_error")):
        return "wrong argument value"
    return _BFCL.get(reason) or _AST.get(reason) or "other"


def bfcl_kind(reason: str, details: Mapping[str, Any]) -> str:
    """The kind of a failed ``bfcl_ast`` verdict (its reason and details)."""
    if reason == "wrong_count":
        calls, wanted = int(details.get("calls", 0)), int(details.get("wanted", 1))
        return "no call" if calls == 0 else "extra call" if calls > wanted else "missing call"
    if reason == "cannot_find_match":
        return _reason_kind(str(details.get("closest") or "other"))
    return _reason_kind(reason)


def goal_kinds(score: Score) -> dict[int, str]:
    """Goal index -> the kind of its error, for a ``bfcl_ast`` or ``ast`` score (other judges: none)."""
    kinds: dict[int, str] = {}
    for code in score.errors:
        goal, _, rest = code.partition(":")
        if not goal.startswith("goal") or not goal[4:].isdigit():
            continue
        judge, _, reason = rest.partition(":")
        if score.judge == JudgeName.BFCL_AST and judge == JudgeName.BFCL_AST:
            kind = bfcl_kind(reason, score.details)
        elif score.judge == JudgeName.AST and judge == "ast":
            kind = _reason_kind(reason_of(rest))
        else:
            continue
        index = int(goal[4:])
        if index not in kinds or KINDS.index(kind) < KINDS.index(kinds[index]):
            kinds[index] = kind
    return kinds
