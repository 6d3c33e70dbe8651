"""BFCL's single-turn verdict (its AST checker) as a squall judge: 1.0 when BFCL would pass the entry, else 0.0.

Applies to tasks tagged ``bfcl:<category>`` for a single-turn category (others: value None). The entry's one goal
holds the gold: one ``GoldCall`` per ground-truth call, ``accepted`` = BFCL's possible answers verbatim (``""``: may
be omitted). Types come from the tool specs the agent was shown (JSON Schema, mapped back to BFCL's Python types).

Which calls count: every call the agent made for the goal, in order — the ones that failed too, and an invented
function counts as a call that matches nothing. BFCL sees one model response; squall's runtime answers each call
(neutrally, in these worlds) and the agent may go on, and a text-protocol agent can only make one call per step, so
the whole turn is the agent's answer (a native agent that calls once and stops gives the same calls either way).
``details["first_step_pass"]`` gives BFCL's stricter reading too: the verdict on the first step that made calls;
``calls`` and ``wanted`` the number made and the gold's, ``closest`` (``cannot_find_match``) the error of the nearest
call (what ``judges.bfcl.error_kinds`` types a failure by).
A call whose arguments could not be read makes the turn's output undecodable, as a bad response is in BFCL: the
entry fails, except in the irrelevance categories, where BFCL counts an undecodable output as no call.

Per category, as BFCL's checker dispatches on the category's name:
- ``irrelevance``, ``live_irrelevance``: pass when no function is called;
- ``live_relevance``: pass when at least one is;
- a ``parallel`` category: as many calls as gold calls, and each gold call, in order, takes the first call not yet
  taken that matches it (BFCL's greedy any-order matching);
- a ``multiple`` category: as many calls as gold calls; the first call is checked against the first gold call;
- otherwise (simple): exactly one call, matching the gold call.
Errors: ``bfcl_ast:<reason>``, BFCL's error types without the checker's name (``wrong_count``, ``wrong_func_name``,
``missing_required``, ``unexpected_param``, ``missing_optional``, ``type_error:simple``, ``value_error:string``,
``cannot_find_match``, ``irrelevance:called``, ``relevance:no_call``, ``decoder_failed``). Under a stressor that
rewrites the gold's form (drift), where the gold itself no longer passes against the docs shown: value None,
``bfcl_ast:gold_reshaped``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from judges.bfcl.bfcl_ast_match import call_error
from judges.calls.decline import INVENTED_CODES
from judges.common.trace_view import agent_events, failed, played, score_for, unscoreable
from judges.names import JudgeName
from sim.core import EpisodeResult, GoldCall, Score

NAME = JudgeName.BFCL_AST
TAG = "bfcl:"
MULTI_TURN = "multi_turn"
"""Categories starting so are multi-turn (the ``bfcl_multi_turn`` judge's); every other BFCL category is scored here
(the worlds load only the single-turn ones squall supports)."""
UNREADABLE_CODES = frozenset({"agent:invalid_arguments", "agent:parse_error:bad_arguments"})
"""A call the agent wrote whose arguments could not be read (BFCL: the response does not decode)."""
_UNKNOWN = "\x00unknown"
"""The name given to a call of a function outside the toolkit: it matches no gold call."""

Call = tuple[str, Mapping[str, Any]]


class Verdict(NamedTuple):
    passed: bool
    reason: str | None  # BFCL's error type without the checker's name; None when passed
    detail: str = ""
    closest: str | None = None  # cannot_find_match: the error of the nearest call (the gold function's, if one)


class Response(NamedTuple):
    """What the agent answered for the goal: its calls in order, those of its first calling step, and whether some
    call could not be read."""

    calls: list[Call]
    first_step: list[Call]
    unreadable: bool


def category_of(tags: Sequence[str]) -> str | None:
    """The entry's BFCL category from the task's tags (``bfcl:live_simple``), when it is a single-turn one."""
    categories = (t.removeprefix(TAG) for t in tags if t.startswith(TAG))
    return next((c for c in categories if c and not c.startswith(MULTI_TURN)), None)


def response_of(result: EpisodeResult, goal: int = 0) -> Response:
    calls: list[tuple[int, Call]] = []
    unreadable = False
    for ev in agent_events(result, goal):
        if ev.kind == "tool_call" and ev.call is not None:
            calls.append((ev.step, (ev.call.name, ev.call.arguments)))
        elif ev.kind == "error" and ev.code in INVENTED_CODES:
            calls.append((ev.step, (_UNKNOWN, {})))
        elif ev.kind == "error" and ev.code in UNREADABLE_CODES:
            unreadable = True
    first = calls[0][0] if calls else None
    return Response([c for _, c in calls], [c for s, c in calls if s == first], unreadable)


def check(
    category: str,
    calls: Sequence[Call],
    gold: Sequence[GoldCall],
    schemas: Mapping[str, Mapping[str, Any]],
    unreadable: bool = False,
) -> Verdict:
    """BFCL's verdict on one entry: the agent's calls against the gold calls, with the functions' parameter schemas
    (name -> JSON Schema) the agent was shown."""
    if "irrelevance" in category:
        if calls and not unreadable:
            return Verdict(False, "irrelevance:called", f"{len(calls)} calls where none was wanted")
        return Verdict(True, None)
    if category == "live_relevance":
        return Verdict(True, None) if calls and not unreadable else Verdict(False, "relevance:no_call")
    if unreadable:
        return Verdict(False, "decoder_failed", "a call's arguments could not be read")
    if len(calls) != (len(gold) if "parallel" in category or "multiple" in category else 1):
        return Verdict(False, "wrong_count", f"{len(calls)} calls, {len(gold)} wanted")
    if "parallel" in category:
        return _any_order(calls, gold, schemas)
    return _one(calls[0], gold[0], schemas)


def _one(call: Call, gold: GoldCall, schemas: Mapping[str, Mapping[str, Any]]) -> Verdict:
    schema = schemas.get(gold.name)
    if schema is None:  # the gold function was not among the agent's tools (a stressor took it)
        return Verdict(False, "gold_function_absent", gold.name)
    reason = call_error(call[0], call[1], gold.name, accepted_of(gold), schema)
    return Verdict(reason is None, reason, "" if reason is None else f"{call[0]}: {reason}")


def _any_order(calls: Sequence[Call], gold: Sequence[GoldCall], schemas: Mapping[str, Mapping[str, Any]]) -> Verdict:
    taken: set[int] = set()
    for g, want in enumerate(gold):
        reasons = []
        for i, call in enumerate(calls):
            if i in taken:
                continue
            verdict = _one(call, want, schemas)
            if verdict.passed:
                taken.add(i)
                break
            reasons.append(verdict.reason or "")
        else:
            detail = f"gold call {g} ({want.name}) matches none of the calls left: {', '.join(reasons)}"
            closest = next((r for r in reasons if r != "wrong_func_name"), reasons[0] if reasons else None)
            return Verdict(False, "cannot_find_match", detail, closest)
    return Verdict(True, None)


def accepted_of(gold: GoldCall) -> dict[str, list[Any]]:
    """BFCL's possible answers of a gold call: its ``accepted`` lists, a parameter without one taking its value."""
    return {**{p: [v] for p, v in gold.arguments.items()}, **gold.accepted}


class BfclAst:
    """BFCL's single-turn verdict per entry (1.0 / 0.0); None on tasks that are not single-turn BFCL entries."""

    name = NAME

    async def score(self, result: EpisodeResult) -> Score:
        category = category_of(result.task.tags)
        if category is None:
            return score_for(result, self.name, value=None)
        if failed(result):
            return unscoreable(result, self.name)
        if not played(result, 0):
            return score_for(result, self.name, value=None, errors=["goal0:turn:not_played"])
        gold = result.task.goals[0].gold
        schemas = {s.name: s.parameters for s in result.tools}
        if result.stressors and not check(category, [(g.name, g.arguments) for g in gold], gold, schemas).passed:
            # A stressor rewrote the gold's form (drift renames, nests, retypes; the docs shown stay BFCL's): BFCL's
            # possible answers no longer describe the right calls, so BFCL has no verdict to give.
            return score_for(result, self.name, value=None, errors=["goal0:bfcl_ast:gold_reshaped"])
        response = response_of(result)
        verdict = check(category, response.calls, gold, schemas, response.unreadable)
        first = (
            verdict
            if len(response.first_step) == len(response.calls)
            else check(category, response.first_step, gold, schemas, response.unreadable)
        )
        value = 1.0 if verdict.passed else 0.0
        return score_for(
            result,
            self.name,
            value=value,
            per_goal=[value, *[None] * (len(result.task.goals) - 1)],
            errors=[] if verdict.passed else [f"goal0:{NAME}:{verdict.reason}"],
            details={
                "category": category,
                "calls": len(response.calls),
                "wanted": len(gold),
                "why": verdict.detail,
                **({"closest": verdict.closest} if verdict.closest else {}),
                "first_step_pass": first.passed,
            },
        )
