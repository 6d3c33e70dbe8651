"""The AST checker: every error of every call in the closed taxonomy, on hand-labelled call sequences (the first
goal of smart-home task 0: turn the living-room ceiling light on at 50% brightness)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import pytest

from judges.calls.arg_match import ArgMatcher
from judges.calls.ast_check import AstChecker, json_type, reason_of
from personas import ScriptedUser, parse_user_spec
from sim.agents.baselines import OracleAgent
from sim.core import AgentFactory, AgentRuntime, EpisodeGold, Event, Score, ToolCall
from sim.episode.env import EpisodeEnv, EpisodeSpec
from sim.episode.loop import run_episode
from sim.llm.gateway import Gateway
from worlds.registry import load_world

HOME = load_world("smart_home")
LIGHT = "living_ceiling_light"
ON = ("set_power", {"device_id": LIGHT, "on": True})
FIFTY = ("set_brightness", {"device_id": LIGHT, "level": 50})


class Scripted:
    """Makes the given calls on the first goal (a None call: an unreadable one), the oracle's after that."""

    name = "scripted-calls"

    def __init__(self, calls: Sequence[tuple[str, dict[str, object]] | None], gold: EpisodeGold) -> None:
        self.calls = calls
        self.gold = gold

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        if self.gold.goal != 0:
            return await OracleAgent(self.gold).respond(history, runtime)
        for step, call in enumerate(self.calls, 1):
            if call is None:
                runtime.fault("agent", "agent:parse_error:bad_json", "Expecting ',' delimiter", step=step)
            else:
                await runtime.call(ToolCall(id="", name=call[0], arguments=dict(call[1])), step=step)
        return "Done."


async def check(calls: Sequence[tuple[str, dict[str, object]] | None]) -> Score:
    env = EpisodeEnv(HOME, partial(Scripted, calls), ScriptedUser(parse_user_spec("scripted")), Gateway(), ("a", "u"))
    result = await run_episode(EpisodeSpec(task=HOME.tasks()[0], trial=0, seed=1), env)
    return await AstChecker(ArgMatcher()).score(result)


def goal0(score: Score) -> list[str]:
    return sorted(e.removeprefix("goal0:") for e in score.errors if e.startswith("goal0:"))


async def test_the_gold_calls_have_no_error_and_lookups_are_exploration() -> None:
    score = await check([("list_rooms", {}), ("list_devices", {"room": "living_room"}), ON, FIFTY])
    assert goal0(score) == [] and score.value == 1.0 and score.per_goal == [1.0, 1.0, 1.0, 1.0]


@pytest.mark.parametrize(
    ("calls", "errors"),
    [
        # a string where the schema says integer: the type, and the value against the gold's number
        (
            [ON, ("set_brightness", {"device_id": LIGHT, "level": "50"})],
            ["ast:type_error:level", "ast:value_error:number:level"],
        ),
        # a required parameter left out: the schema's error and the gold's
        ([("set_power", {"device_id": LIGHT}), FIFTY], ["ast:missing_required:on", "ast:value_error:boolean:on"]),
        ([("set_power", {"device_id": LIGHT, "on": True, "fade": 2}), FIFTY], ["ast:unexpected_param:fade"]),
        ([("dim_lights", {"level": 50}), ON, FIFTY], ["ast:hallucinated_function"]),
        # a write the goal never asks for
        ([ON, FIFTY, ("set_color", {"device_id": LIGHT, "color": "red"})], ["ast:wrong_function"]),
        # the brightness set twice to different values; and never turned on
        ([ON, ("set_brightness", {"device_id": LIGHT, "level": 40}), FIFTY], ["ast:wrong_count:set_brightness"]),
        ([FIFTY], ["ast:wrong_count:set_power"]),
        ([ON, ("set_brightness", {"device_id": "kitchen_pendant", "level": 50})], ["ast:value_error:string:device_id"]),
        ([None, ON, FIFTY], ["ast:instruction_format"]),
    ],
)
async def test_every_error_of_a_call_is_named(
    calls: list[tuple[str, dict[str, object]] | None], errors: list[str]
) -> None:
    score = await check(calls)
    assert goal0(score) == sorted(errors)
    assert score.per_goal[0] == 0.0 and score.per_goal[1:] == [1.0, 1.0, 1.0]


async def test_a_retry_of_the_same_call_is_one_call_not_a_wrong_count() -> None:
    score = await check([ON, ON, FIFTY])
    assert goal0(score) == []


async def test_the_reasons_are_counted_in_details() -> None:
    score = await check([("dim_lights", {}), ON, ("set_brightness", {"device_id": LIGHT, "level": "50"})])
    assert score.details["reasons"] == {"hallucinated_function": 1, "type_error": 1, "value_error:number": 1}


def test_reason_and_type_names() -> None:
    assert reason_of("ast:value_error:string:city") == "value_error:string"
    assert reason_of("ast:wrong_count:set_power") == "wrong_count"
    assert [json_type(v) for v in (None, True, 1.5, "a", [1], {"a": 1})] == [
        "null",
        "boolean",
        "number",
        "string",
        "array",
        "object",
    ]


class FollowsTheDocsFirst:
    """On the first goal, first sends what the docs it was shown say (``first``: gold call -> the call the docs
    give), then the gold; the oracle after that."""

    name = "docs-first"

    def __init__(self, first: dict[str, ToolCall], gold: EpisodeGold) -> None:
        self.first = first
        self.gold = gold

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        if self.gold.goal != 0:
            return await OracleAgent(self.gold).respond(history, runtime)
        for step, gold in enumerate(self.gold.task.goals[0].gold, 1):
            if gold.name in self.first:
                await runtime.call(self.first[gold.name], step=step)
            await runtime.call(ToolCall(id="", name=gold.name, arguments=dict(gold.arguments)), step=step)
        return "Done."


async def stressed(pack_name: str, scenario: str, task: object, agent: AgentFactory) -> list[Score]:
    from judges.calls.core_api import CoreApiAccuracy
    from worlds.stressors.catalog import build_stressors

    pack = load_world(pack_name)
    tools = [s.name for s in pack.new_world(0).specs()]
    user = ScriptedUser(parse_user_spec("scripted"))
    env = EpisodeEnv(pack, agent, user, Gateway(), ("a", "u"), tuple(build_stressors([scenario], 1, tools)))
    result = await run_episode(EpisodeSpec(task=task, trial=0, seed=1), env)  # type: ignore[arg-type]
    return [await AstChecker(ArgMatcher()).score(result), await CoreApiAccuracy(ArgMatcher()).score(result)]


async def test_a_call_a_drifted_server_refused_is_not_an_error_of_the_agent() -> None:
    task = next(t for t in HOME.tasks() if any(c.name == "activate_scene" for c in t.goals[0].gold))
    scene = next(c for c in task.goals[0].gold if c.name == "activate_scene")
    agent = partial(
        FollowsTheDocsFirst, {"activate_scene_v2": ToolCall(id="", name="activate_scene", arguments=scene.arguments)}
    )
    ast, core = await stressed("smart_home", "drift.scene_v2", task, agent)
    assert core.per_goal[0] == 1.0 and ast.per_goal[0] == 1.0 and goal0(ast) == []


async def test_a_call_a_limitation_refused_is_not_a_wrong_count() -> None:
    pack = load_world("multidomain")
    task = next(
        t
        for t in pack.tasks()
        if any(c.name == "get_weather_forecast" and (c.arguments.get("days") or 0) > 3 for c in t.goals[0].gold)
    )
    asked = next(c for c in task.goals[0].gold if c.name == "get_weather_forecast")
    agent = partial(FollowsTheDocsFirst, {asked.name: ToolCall(id="", name=asked.name, arguments=asked.arguments)})
    ast, core = await stressed("multidomain", "limitation.forecast_three_days", task, agent)
    assert core.per_goal[0] == 1.0 and ast.per_goal[0] == 1.0 and goal0(ast) == []


def test_non_finite_numbers_are_type_errors_not_crashes() -> None:
    from judges.calls.ast_check import schema_errors

    spec = next(s for s in HOME.new_world(0).specs() if s.name == "set_brightness")
    call = ToolCall(id="c", name="set_brightness", arguments={"device_id": LIGHT, "level": float("nan")})
    assert schema_errors(call, spec) == ["ast:type_error:level"]
    call = ToolCall(id="c", name="set_brightness", arguments={"device_id": LIGHT, "level": float("inf")})
    assert schema_errors(call, spec) == ["ast:type_error:level"]
