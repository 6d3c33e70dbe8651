"""Free arguments (``Goal.free_arguments``): an optional argument the goal does not constrain is not compared by the
call judges — an agent adding ``limit: 10`` passes, a wrong constrained value still fails, the oracle scores 1.0 and
the null agent 0.0; without the declaration the same call is wrong, as before."""

from __future__ import annotations

from typing import Any

import pytest

from judges.calls.arg_match import ArgMatcher
from judges.calls.ast_check import AstChecker
from judges.calls.call_f1 import CallF1
from judges.calls.core_api import ConversationSuccess, CoreApiAccuracy
from judges.calls.failure_stage import FailureStage
from sim.core import EpisodeResult, Goal, GoldCall, ToolSpec, UserIntent
from tests.support import traces

LIST_SCHEMA = {
    "type": "object",
    "properties": {"to": {"type": "string"}, "limit": {"type": "integer"}, "page": {"type": "integer"}},
    "required": ["to"],
}
SPECS = [
    ToolSpec(name="list_messages", description="", parameters=LIST_SCHEMA, read_only=True),
    ToolSpec(name="list_calls", description="", parameters=LIST_SCHEMA, read_only=True),
]
GOLD = GoldCall(name="list_messages", arguments={"to": "+15550001"})
EXACT = ArgMatcher(mode="exact")


def goal(free: list[str], gold: list[GoldCall] | None = None) -> Goal:
    return Goal(user=UserIntent(explicit="x"), gold=gold or [GOLD], free_arguments=free)


def run(g: Goal, *made: tuple[str, dict[str, Any]]) -> EpisodeResult:
    return traces.episode([g], [[(name, args, "success") for name, args in made]], SPECS)


async def verdicts(ep: EpisodeResult) -> dict[str, float | None]:
    judges = [CoreApiAccuracy(EXACT), ConversationSuccess(EXACT), CallF1(EXACT), AstChecker(EXACT)]
    return {str(j.name): (await j.score(ep)).value for j in judges}


@pytest.mark.parametrize("free", [["limit"], ["list_messages.limit"], ["limit", "page"]])
async def test_a_free_argument_added_or_changed_passes_every_call_judge(free: list[str]) -> None:
    added = await verdicts(run(goal(free), ("list_messages", {"to": "+15550001", "limit": 10})))
    assert set(added.values()) == {1.0}, added
    added_ep = run(goal(free), ("list_messages", {"to": "+15550001", "limit": 10}))
    assert (await FailureStage(EXACT).score(added_ep)).details["stages"] == [None]
    oracle = await verdicts(run(goal(free), ("list_messages", GOLD.arguments)))
    assert set(oracle.values()) == {1.0}, oracle
    null = await verdicts(run(goal(free)))
    assert null["core_api_accuracy"] == 0.0 and null["conversation_success"] == 0.0


async def test_a_gold_value_of_a_free_argument_may_be_left_out_or_changed() -> None:
    gold = [GoldCall(name="list_messages", arguments={"to": "+15550001", "limit": 20})]
    for made in ({"to": "+15550001"}, {"to": "+15550001", "limit": 5}):
        assert set((await verdicts(run(goal(["limit"], gold), ("list_messages", made)))).values()) == {1.0}
    # slot F1 counts only the constrained slots: the free one is no slot on either side
    f1 = await CallF1(EXACT).score(run(goal(["limit"], gold), ("list_messages", {"to": "+15550001", "limit": 5})))
    assert f1.details["counts"]["slot"] == [1, 1, 1]


async def test_a_wrong_constrained_value_still_fails() -> None:
    ep = run(goal(["limit"]), ("list_messages", {"to": "+15559999", "limit": 10}))
    scores = await verdicts(ep)
    assert scores["core_api_accuracy"] == 0.0 and scores["conversation_success"] == 0.0
    assert scores["ast"] == 0.0 and scores["call_f1"] is not None and scores["call_f1"] < 1.0
    errors = (await CoreApiAccuracy(EXACT).score(ep)).errors
    assert errors == ["goal0:args:value:to"]  # the free limit is not named among the deductions
    assert (await FailureStage(EXACT).score(ep)).details["stages"] != [None]


async def test_without_the_declaration_the_added_argument_is_extra() -> None:
    ep = run(goal([]), ("list_messages", {"to": "+15550001", "limit": 10}))
    assert (await CoreApiAccuracy(EXACT).score(ep)).errors == ["goal0:args:extra:limit"]
    # qualified by another tool: this call's limit stays constrained
    ep = run(goal(["list_calls.limit"]), ("list_messages", {"to": "+15550001", "limit": 10}))
    assert (await CoreApiAccuracy(EXACT).score(ep)).value == 0.0
