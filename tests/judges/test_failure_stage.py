"""Failure-stage taxonomy: each wrong turn gets the first stage that went wrong, on the path the agent was on."""

from __future__ import annotations

from typing import Any

from judges.calls.arg_match import ArgMatcher
from judges.calls.failure_stage import FailureStage
from sim.core import EpisodeResult, Event, Goal, GoldCall, ToolSpec, UserIntent
from tests.support import traces

SPECS = [
    ToolSpec(name="list_devices", description="", read_only=True),
    ToolSpec(name="set_power", description=""),
    ToolSpec(name="set_brightness", description=""),
    ToolSpec(name="activate_scene", description=""),
]
LOOKUP = GoldCall(name="list_devices", role="support")
ON = GoldCall(name="set_power", arguments={"device_id": "lamp_42", "on": True})
DIM = GoldCall(name="set_brightness", arguments={"device_id": "lamp_42", "level": 30})
SCENE = GoldCall(name="activate_scene", arguments={"scene_id": "movie"})


def call(
    name: str,
    args: dict[str, Any],
    status: str = "success",
    code: str | None = None,
    scenarios: tuple[str, ...] = (),
    content: Any = None,
) -> dict[str, Any]:
    return {
        "name": name,
        "args": args,
        "status": status,
        "code": code,
        "scenarios": list(scenarios),
        "content": content,
    }


def episode(
    turns: list[Goal], calls: list[list[dict[str, Any]]], played: int | None = None, said: str = "please"
) -> EpisodeResult:
    """``traces.episode`` with each result's error code, content and firing scenarios, and what the user said."""
    plain = [[(c["name"], c["args"], c["status"]) for c in turn_calls] for turn_calls in calls]
    base = traces.episode(turns, plain, SPECS, played)
    extra = iter(c for turn_calls in calls for c in turn_calls)
    events: list[Event] = []
    for ev in base.events:
        if ev.kind == "tool_result" and ev.result is not None:
            c = next(extra)
            result = ev.result.model_copy(update={"error_code": c["code"], "content": c["content"]})
            ev = ev.model_copy(update={"result": result, "scenarios": c["scenarios"]})
        elif ev.kind == "user_message":
            ev = ev.model_copy(update={"content": said})
        events.append(ev)
    return base.model_copy(update={"events": events})


def turn(*gold: GoldCall, alternatives: list[list[GoldCall]] | None = None) -> Goal:
    return Goal(user=UserIntent(explicit="x"), gold=list(gold), alternatives=alternatives or [])


async def stages(ep: EpisodeResult) -> list[str | None]:
    score = await FailureStage(ArgMatcher(mode="exact")).score(ep)
    assert score.value is None and not score.judge_fault
    assert score.errors == [f"goal{i}:stage:{s}" for i, s in enumerate(score.details["stages"]) if s]
    return list(score.details["stages"])


async def one(gold: list[GoldCall], calls: list[dict[str, Any]], said: str = "please") -> str | None:
    return (await stages(episode([turn(*gold)], [calls], said=said)))[0]


async def test_right_turns_and_turns_without_core_calls_get_no_stage() -> None:
    ep = episode([turn(ON), turn(), turn(LOOKUP)], [[call("set_power", ON.arguments)], [], []])
    assert await stages(ep) == [None, None, None]


async def test_search_a_needed_tool_the_toolkit_never_had() -> None:
    moved = GoldCall(name="activate_scene_v2", arguments={"scene_id": "movie"})
    refused = call("activate_scene", SCENE.arguments, "not_found", "endpoint_moved", ("drift.scene_v2",))
    assert await one([moved], [refused]) == "search"
    # Found it (the error named it) but with the wrong arguments: past the search.
    assert await one([moved], [refused, call("activate_scene_v2", {"scene_id": "x"})]) == "tool_use"


async def test_identification_the_tool_was_there_and_never_called() -> None:
    assert await one([ON], []) == "identification"
    assert await one([ON], [call("activate_scene", SCENE.arguments)]) == "identification"  # another tool instead
    # Every core call right, plus a state-changing call of another tool.
    assert await one([ON], [call("set_power", ON.arguments), call("activate_scene", {})]) == "identification"


async def test_chaining_missing_prerequisites_and_values_from_earlier_calls() -> None:
    for code in ("device_off", "not_looked_up", "prerequisite_missing", "unknown_device"):
        assert await one([DIM], [call("set_brightness", DIM.arguments, "failed", code)]) == "chaining", code
    found = call("list_devices", {}, content=[{"id": "lamp_42"}])
    wrong_id = call("set_brightness", {"device_id": "lamp_1", "level": 30})
    assert await one([LOOKUP, DIM], [found, wrong_id]) == "chaining"  # the lookup showed the id
    assert await one([LOOKUP, DIM], [found, wrong_id], said="the lamp_42 please") == "tool_use"  # the user said it
    assert await one([DIM], [wrong_id]) == "tool_use"  # no earlier result had it


async def test_tool_use_wrong_arguments_or_format() -> None:
    assert await one([DIM], [call("set_brightness", {"device_id": "lamp_42", "level": 80})]) == "tool_use"
    invalid = call("set_brightness", DIM.arguments, "invalid_arguments", "schema_mismatch", ("drift.x",))
    assert await one([DIM], [invalid]) == "tool_use"
    limited = call("set_brightness", DIM.arguments, "failed", "plan_limit", ("limitation.one_level_per_call",))
    assert await one([DIM], [limited]) == "tool_use"
    # Two calls of one tool needed, one made: the second was never made.
    assert await one(
        [ON, ON.model_copy(update={"arguments": {"device_id": "fan"}})], [call("set_power", ON.arguments)]
    ) == ("identification")


async def test_execution_refusals_outside_the_call() -> None:
    assert await one([ON], [call("set_power", ON.arguments, "unavailable", "down", ("outage",))]) == "execution"
    assert await one([ON], [call("set_power", ON.arguments, "rate_limited", "slow_down")]) == "execution"
    assert await one([ON], [call("set_power", ON.arguments, "failed", "internal_error", ("failure.hub",))]) == (
        "execution"
    )
    # A chaining refusal among them is earlier in the pipeline than the outage.
    calls = [
        call("set_power", ON.arguments, "unavailable", "down"),
        call("set_power", ON.arguments, "failed", "device_off"),
    ]
    assert await one([ON], calls) == "chaining"


async def test_a_failed_support_step_is_where_the_agent_stopped() -> None:
    refused = call("list_devices", {"room": 3}, "invalid_arguments", "schema_mismatch")
    assert await one([LOOKUP, DIM], [refused]) == "tool_use"
    assert await one([LOOKUP, DIM], [refused, call("list_devices", {})]) == "identification"  # it got through


async def test_the_path_the_agent_was_on_decides() -> None:
    wrong_scene = call("activate_scene", {"scene_id": "party"})
    # The alternative is the path it took (tool_use there), not the primary it never touched (identification).
    assert await stages(episode([turn(ON, alternatives=[[SCENE]])], [[wrong_scene]])) == ["tool_use"]
    # The same tools on both paths: the one it got further along.
    first = GoldCall(name="list_devices", arguments={"room": "den"})
    paths = turn(first, ON, alternatives=[[first.model_copy(update={"arguments": {"room": "hall"}}), ON]])
    moved = [call("list_devices", {"room": "den"}), call("set_power", {"device_id": "lamp_1", "on": True})]
    assert await stages(episode([paths], [moved])) == ["tool_use"]


async def test_unplayed_turns_and_failed_episodes() -> None:
    ep = episode([turn(ON), turn(DIM)], [[call("set_power", ON.arguments)]], played=1)
    assert await stages(ep) == [None, "not_played"]
    failed = ep.model_copy(update={"termination": "provider_error"})
    score = await FailureStage(ArgMatcher(mode="exact")).score(failed)
    assert score.value is None and score.errors == ["episode:provider_error"] and not score.judge_fault
