"""The bfcl_ast judge on hand-built entries: BFCL's possible-answer rules, its per-category dispatch, which calls
count, when it does not apply, and its summary per category. (Agreement with BFCL's own checker over every entry:
``test_bfcl_ast_agreement``.)"""

from __future__ import annotations

from typing import Any

import pytest

from judges.bfcl.bfcl_ast import BfclAst, check
from judges.bfcl.bfcl_ast_match import call_error, standardize
from judges.bfcl.bfcl_ast_summary import BfclAstSummary
from judges.common.reduction import EpisodeFacts, RunFacts
from judges.common.trace_view import score_for
from sim.core import EpisodeResult, Event, Goal, GoldCall, Task, ToolCall, ToolSpec, UserIntent

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "days": {"type": "integer"},
        "ratio": {"type": "number"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "points": {"type": "array", "items": {"type": "number"}},
        "where": {"type": "object", "properties": {"lat": {"type": "number"}}},
        "anything": {},
    },
    "required": ["city"],
}
SCHEMAS = {"forecast": SCHEMA}
GOLD = GoldCall(
    name="forecast",
    arguments={"city": "New York, NY", "days": 3},
    accepted={"city": ["New York, NY", "NYC"], "days": [3, ""], "ratio": ["", 0.5], "tags": ["", ["a", "b"]]},
)


def answer(**accepted: list[Any]) -> GoldCall:
    return GoldCall(name="forecast", accepted=accepted)


def error(args: dict[str, Any], gold: GoldCall = GOLD) -> str | None:
    return call_error("forecast", args, gold.name, gold.accepted, SCHEMA)


def test_standardisation_drops_spaces_and_punctuation_and_case() -> None:
    assert standardize("New York, NY") == standardize("new-york ny.") == "newyorkny"
    assert standardize("it's") == 'it"s'
    assert error({"city": "new york ny"}) is None
    assert error({"city": "New York!"}) == "value_error:string"


def test_omittable_required_unexpected_and_missing() -> None:
    assert error({"city": "NYC"}) is None  # days, ratio, tags may be left out
    assert error({"days": 3}) == "missing_required"
    assert error({"city": "NYC", "zip": 1}) == "unexpected_param"
    assert error({"city": "NYC", "anything": "x"}) == "unexpected_param"  # in the schema, not in the answer
    strict = GOLD.model_copy(update={"accepted": {**GOLD.accepted, "days": [3]}})
    assert error({"city": "NYC"}, strict) == "missing_optional"


def test_types_int_for_float_yes_float_for_int_no() -> None:
    assert error({"city": "NYC", "ratio": 0.5}) is None
    assert error({"city": "NYC", "days": 3.0}) == "type_error:simple"
    assert error({"city": "NYC", "days": True}) == "type_error:simple"
    half = GOLD.model_copy(update={"accepted": {**GOLD.accepted, "ratio": [2.0]}})
    assert error({"city": "NYC", "ratio": 2}, half) is None  # Python's int -> float, as BFCL allows


def test_lists_compare_item_by_item_standardised() -> None:
    assert error({"city": "NYC", "tags": ["A", "b."]}) is None
    assert error({"city": "NYC", "tags": ["b", "a"]}) == "value_error:list"
    assert error({"city": "NYC", "tags": []}) is None  # BFCL reads the omission marker "" as the empty list
    points = GOLD.model_copy(update={"accepted": {**GOLD.accepted, "points": [[1.5, 2.0]]}})
    assert error({"city": "NYC", "points": [1.5, 2]}, points) == "type_error:nested"  # no int -> float inside


def test_dicts_and_variables() -> None:
    where = GOLD.model_copy(update={"accepted": {**GOLD.accepted, "where": [{"lat": [1.5], "lon": ["", 2.0]}]}})
    assert error({"city": "NYC", "where": {"lat": 1.5}}, where) is None
    assert error({"city": "NYC", "where": {"lat": 2.5}}, where) == "value_error:dict_value"
    assert error({"city": "NYC", "where": {"lat": 1.5, "alt": 1}}, where) == "value_error:dict_key"
    variable = GOLD.model_copy(update={"accepted": {**GOLD.accepted, "days": ["n_days"]}})
    assert error({"city": "NYC", "days": "n_days"}, variable) is None  # typed like the answer: BFCL's variable
    assert error({"city": "NYC", "days": "N_DAYS"}, variable) == "value_error:others"  # compared as it is


def test_categories_dispatch_as_bfcl_does() -> None:
    good = ("forecast", {"city": "NYC"})
    other = answer(city=["Paris"])
    assert check("simple_python", [good], [GOLD], SCHEMAS).passed
    assert check("simple_python", [good, good], [GOLD], SCHEMAS).reason == "wrong_count"
    assert check("multiple", [("forecast", {"city": "Rome"})], [GOLD], SCHEMAS).reason == "value_error:string"
    pair = [("forecast", {"city": "Paris"}), good]
    assert check("parallel", pair, [GOLD, other], SCHEMAS).passed  # any order
    assert check("parallel", [good, good], [GOLD, other], SCHEMAS).reason == "cannot_find_match"
    assert check("irrelevance", [], [], SCHEMAS).passed
    assert check("irrelevance", [good], [], SCHEMAS).reason == "irrelevance:called"
    assert check("irrelevance", [good], [], SCHEMAS, unreadable=True).passed  # BFCL: an undecodable output
    assert check("live_relevance", [good], [], SCHEMAS).passed
    assert check("live_relevance", [], [], SCHEMAS).reason == "relevance:no_call"
    assert check("simple_python", [good], [GOLD], SCHEMAS, unreadable=True).reason == "decoder_failed"


def test_parallel_matching_is_greedy_like_bfcl() -> None:
    """Gold call 0 takes the first call it matches, even where another pairing would match both (BFCL's rule)."""
    loose = answer(city=["NYC", "Paris"])
    strict = answer(city=["NYC"])
    calls = [("forecast", {"city": "NYC"}), ("forecast", {"city": "Paris"})]
    assert not check("parallel", calls, [loose, strict], SCHEMAS).passed
    assert check("parallel", calls, [strict, loose], SCHEMAS).passed


def episode(
    tags: list[str], events: list[Event], gold: list[GoldCall] | None = None, stressors: list[str] | None = None
) -> EpisodeResult:
    task = Task(
        id="e1", world="bfcl:simple", tags=tags,
        goals=[Goal(user=UserIntent(explicit="Weather in NYC?"), gold=[GOLD] if gold is None else gold)],
    )  # fmt: skip
    user = Event(kind="user_message", turn=0, goal=0, content="Weather in NYC?")
    return EpisodeResult(
        episode_id="e1#0", task_id="e1", trial=0, seed=0, world=task.world, agent="a", user="u", task=task,
        tools=[ToolSpec(name="forecast", description="", parameters=SCHEMA)], events=[user, *events],
        turns_played=1, goals_played=1, stressors=stressors or [],
    )  # fmt: skip


def called(step: int, city: str) -> Event:
    call = ToolCall(id=f"c{step}{city}", name="forecast", arguments={"city": city})
    return Event(kind="tool_call", turn=0, goal=0, step=step, call=call)


async def test_the_judge_counts_the_whole_turn_and_reports_the_first_step_too() -> None:
    score = await BfclAst().score(episode(["bfcl", "bfcl:simple_python"], [called(1, "NYC")]))
    assert score.value == 1.0 and score.per_goal == [1.0] and score.details["first_step_pass"]
    retried = await BfclAst().score(episode(["bfcl", "bfcl:simple_python"], [called(1, "Rome"), called(2, "NYC")]))
    assert retried.value == 0.0 and retried.errors == ["goal0:bfcl_ast:wrong_count"]
    split = [called(1, "NYC"), called(2, "Paris")]
    other = answer(city=["Paris"])
    parallel = await BfclAst().score(episode(["bfcl", "bfcl:parallel"], split, [GOLD, other]))
    assert parallel.value == 1.0 and not parallel.details["first_step_pass"]  # one response: BFCL would fail it


async def test_invented_functions_count_and_other_tasks_are_not_scored() -> None:
    invented = Event(kind="error", turn=0, goal=0, step=1, fault="agent", code="agent:unknown_tool")
    score = await BfclAst().score(episode(["bfcl", "bfcl:irrelevance"], [invented], gold=[]))
    assert score.value == 0.0 and score.errors == ["goal0:bfcl_ast:irrelevance:called"]
    unreadable = Event(kind="error", turn=0, goal=0, step=1, fault="agent", code="agent:invalid_arguments")
    score = await BfclAst().score(episode(["bfcl", "bfcl:simple_python"], [called(1, "NYC"), unreadable]))
    assert score.value == 0.0 and score.errors == ["goal0:bfcl_ast:decoder_failed"]
    for tags in ([], ["bfcl", "bfcl:multi_turn_base"]):
        assert (await BfclAst().score(episode(tags, [called(1, "NYC")]))).value is None


async def test_a_gold_a_stressor_reshaped_has_no_bfcl_verdict() -> None:
    drifted = GoldCall(name="forecast_v2", arguments={"request": {"city": "NYC"}}, accepted={"city": ["NYC"]})
    tags = ["bfcl", "bfcl:simple_python"]
    score = await BfclAst().score(episode(tags, [called(1, "NYC")], [drifted], ["drift.auto_rename_endpoint"]))
    assert score.value is None and score.errors == ["goal0:bfcl_ast:gold_reshaped"]
    plain = await BfclAst().score(episode(tags, [called(1, "NYC")], None, ["perturb.typos"]))
    assert plain.value == 1.0  # a stressor that leaves the gold's form alone: BFCL's verdict as ever


def test_the_summary_gives_accuracy_per_category() -> None:
    part = BfclAstSummary()
    scores = [
        ("simple_python", 1.0, []),
        ("simple_python", 0.0, ["goal0:bfcl_ast:wrong_count"]),
        ("irrelevance", 1.0, []),
    ]
    for i, (category, value, errors) in enumerate(scores):
        result = episode(["bfcl", f"bfcl:{category}"], [])
        score = score_for(result, "bfcl_ast", value=value, errors=errors, details={"category": category})
        verdict = part.verdict(score)
        assert verdict is not None
        part.add(verdict, EpisodeFacts(f"t{i}", 0, False, 0))
    summary = part.result(RunFacts(1, (0,)))
    assert summary["bfcl_ast_accuracy"] == pytest.approx(0.6667)
    assert summary["bfcl_ast_by_category"]["simple_python"]["accuracy"] == 0.5
    assert summary["bfcl_ast_errors"] == {"wrong_count": 1}
    assert BfclAstSummary.sections(summary)[0].rows[0][0] == "irrelevance"
