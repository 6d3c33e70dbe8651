"""Call F1: position-aware intent and slot P/R/F1 against the gold sequence, error categories, stuck turns."""

from __future__ import annotations

from typing import Any

import pytest

from judges.calls.arg_match import ArgMatcher
from judges.calls.call_f1 import CallF1, align, prf
from sim.core import EpisodeResult, Event, GoldCall, Score, ToolCall, ToolSpec
from tests.support import traces

SPECS = [
    ToolSpec(name="find_singer", description="", read_only=True),
    ToolSpec(name="set_power", description=""),
    ToolSpec(name="set_level", description=""),
    ToolSpec(name="play", description=""),
]
ON = GoldCall(name="set_power", arguments={"device": "lamp", "on": True})
DIM = GoldCall(name="set_level", arguments={"device": "lamp", "level": 30})
PLAY = GoldCall(name="play", arguments={"song": "x"})
EXACT = ArgMatcher(mode="exact")


async def judge(ep: EpisodeResult) -> Score:
    return await CallF1(EXACT).score(ep)


def calls(*made: tuple[str, dict[str, Any]] | tuple[str, dict[str, Any], str]) -> list[traces.AgentCall]:
    return [(c[0], c[1], c[2] if len(c) == 3 else "success") for c in made]  # type: ignore[misc]


async def test_a_perfect_turn_scores_one_and_counts_every_slot() -> None:
    ep = traces.episode(
        [traces.turn([ON, DIM])], [calls(("set_power", ON.arguments), ("set_level", DIM.arguments))], SPECS
    )
    score = await judge(ep)
    assert score.value == 1.0 and score.details["counts"] == {"intent": [2, 2, 2], "slot": [4, 4, 4]}
    assert score.details["categories"] == [None] and score.errors == []


async def test_order_matters_intents_align_by_lcs() -> None:
    ep = traces.episode(
        [traces.turn([ON, DIM])], [calls(("set_level", DIM.arguments), ("set_power", ON.arguments))], SPECS
    )
    score = await judge(ep)
    assert score.details["counts"]["intent"] == [1, 2, 2]  # swapped: only one pair keeps the order
    assert score.details["intent"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5}
    # slots of the aligned pair are right (2), the other call's slots unmatched on both sides
    assert score.details["counts"]["slot"] == [2, 4, 4]


async def test_slot_errors_and_their_categories() -> None:
    cases: dict[str, dict[str, Any]] = {
        "wrong_arg_value": {"device": "lamp", "on": False},
        "wrong_arg_type": {"device": "lamp", "on": "true"},
        "missing_arg": {"device": "lamp"},
        "extra_arg": {"device": "lamp", "on": True, "fast": True},
    }
    for expected, args in cases.items():
        score = await judge(traces.episode([traces.turn([ON])], [calls(("set_power", args))], SPECS))
        assert score.details["categories"] == [expected], (expected, score.details)
    score = await judge(traces.episode([traces.turn([ON])], [calls(("set_power", {"device": "lamp"}))], SPECS))
    assert score.details["counts"] == {"intent": [1, 1, 1], "slot": [1, 1, 2]}


async def test_turn_level_categories() -> None:
    async def category(made: list[traces.AgentCall], gold: list[GoldCall] | None = None, **kw: Any) -> str | None:
        ep = traces.episode([traces.turn(gold or [ON])], [made], SPECS, **kw)
        return (await judge(ep)).details["categories"][0]

    assert await category([]) == "no_call"
    assert await category([], played=0) == "not_played"
    assert await category(calls(("play", {"song": "x"}))) == "wrong_function"
    assert await category(calls(("set_power", ON.arguments, "unavailable"))) == "execution_error"
    assert await category(calls(("set_power", ON.arguments, "invalid_arguments"))) == "refused_call"
    assert await category(calls(("set_power", ON.arguments), ("play", {"song": "x"}))) == "extra_call"
    # core API accuracy compares sets: a repeated identical call is not wrong; a call of the tool too many or few is
    other = {"device": "fan", "on": True}
    assert await category(calls(("set_power", ON.arguments), ("set_power", ON.arguments))) is None
    assert await category(calls(("set_power", ON.arguments), ("set_power", other))) == "wrong_count"
    assert await category(calls(("set_power", ON.arguments)), [ON, GoldCall(name="set_power", arguments=other)]) == (
        "wrong_count"
    )


async def test_an_invented_function_is_hallucinated() -> None:
    ep = traces.episode([traces.turn([ON])], [[]], SPECS)
    fault = Event(kind="error", turn=0, fault="agent", code="agent:unknown_tool", content="turn_on_lamp")
    ep = ep.model_copy(update={"events": [*ep.events, fault]})
    assert (await judge(ep)).details["categories"] == ["hallucinated_function"]


async def test_the_best_accepted_path_is_used_and_lookups_are_not_scored() -> None:
    turn = traces.turn([ON], alternatives=[[GoldCall(name="find_singer", role="support"), PLAY]])
    ep = traces.episode([turn], [calls(("find_singer", {"q": "a"}), ("play", {"song": "x"}))], SPECS)
    score = await judge(ep)
    assert score.value == 1.0 and score.details["counts"]["intent"] == [1, 1, 1]


async def test_stuck_turns() -> None:
    looping = calls(*[("set_power", ON.arguments, "failed")] * 3)
    asking = calls(*[("find_singer", {"q": "a"})] * 3)
    ep = traces.episode([traces.turn([ON]), traces.turn([]), traces.turn([ON])], [looping, asking, []], SPECS)
    limit = Event(kind="error", turn=2, fault="agent", code="agent:step_limit", content="")
    ep = ep.model_copy(update={"events": [*ep.events, limit]})
    score = await judge(ep)
    assert score.details["stuck"] == {"0": "repeated_failure", "1": "repeated_call", "2": "no_progress"}


async def test_failed_episodes_and_episodes_without_calls() -> None:
    ep = traces.episode([traces.turn([ON])], [[]], SPECS, termination="timeout")
    assert (await judge(ep)).errors == ["episode:timeout"]
    empty = await judge(traces.episode([traces.turn([])], [[]], SPECS))
    assert empty.value is None and empty.details["intent"] == {"precision": None, "recall": None, "f1": None}


def test_prf_and_alignment_ties_prefer_right_slots() -> None:
    assert prf(1, 2, 4) == {"precision": 0.5, "recall": 0.25, "f1": pytest.approx(0.3333)}
    first, second = (
        GoldCall(name="set_level", arguments={"level": 1}),
        GoldCall(name="set_level", arguments={"level": 2}),
    )
    made = [ToolCall(id="a", name="set_level", arguments={"level": 2})]
    counts, aligned = align(made, [first, second], {}, EXACT)
    assert counts.slot_tp == 1 and aligned[0][1] is second
