"""External failures and missing functions: backup paths, impossible turns, and how giving up is judged."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from judges.calls.decline import DeclineJudge, gives_up
from personas.scripted import ScriptedUser
from sim.config.run_config import RunConfig
from sim.core import (
    AgentFactory,
    AgentRuntime,
    EpisodeGold,
    EpisodeResult,
    Event,
    Goal,
    GoldCall,
    Task,
    ToolCall,
    UserGoldCall,
    UserIntent,
)
from sim.episode.env import EpisodeEnv, EpisodeLimits, EpisodeSpec
from sim.episode.loop import run_episode
from sim.llm.gateway import Gateway
from sim.run.runner import execute
from worlds.registry import load_world
from worlds.stressors import build_stressors, builtin_scenarios
from worlds.stressors.decline import declined
from worlds.stressors.types.missing import pick
from worlds.stressors.types.outage import impossible_goal

ROWS = {s.name: s for s in builtin_scenarios() if s.type in ("outage", "missing")}


async def _run(tmp_path: Path, world: str, agent: str, tasks: list[str] | None = None) -> dict:  # type: ignore[type-arg]
    cfg = RunConfig.model_validate(
        {
            "out": tmp_path,
            "run_id": f"{world}-{agent}",
            "agent": agent,
            "world": world,
            "stressors": ["outage", "outage.impossible", "missing", "missing.removed"],
            "stressor_mode": "isolated",
            **({"tasks": tasks} if tasks else {}),
        }
    )
    return (await execute(cfg))[1]


@pytest.mark.parametrize("world", ["smart_home", "multidomain"])
@pytest.mark.slow
async def test_the_oracle_takes_the_backup_path_and_declines_what_nothing_can_do(tmp_path: Path, world: str) -> None:
    tasks = None if world == "smart_home" else [t.id for t in load_world(world).tasks()[:40]]
    summary = await _run(tmp_path, world, "oracle", tasks)
    assert summary["failed_episodes"] == 0
    assert summary["core_api_accuracy"] == 1.0 and summary["conversation_success"] == 1.0
    scored = {row["name"] for row in summary["stressors"]["by_scenario"]}
    assert {"outage.backup"} <= scored  # the backup row is measured against the baseline
    assert summary["give_up"]["rate"] == 1.0 and summary["give_up"]["decline_turns"] > 0


def _episode_task(world: str, scenario: str, seed: int = 3) -> tuple[Task, list[object]]:
    pack = load_world(world)
    tool_names = [s.name for s in pack.new_world(0).specs()]
    for task in pack.tasks():
        stressors = build_stressors([scenario], seed, tool_names)
        stressed = task
        for s in stressors:
            stressed = s.on_task(stressed)
        if any(t.outcome == "decline" for t in stressed.goals):
            return task, list(stressors)
    raise AssertionError(f"no task of {world} gets a decline turn from {scenario}")


def _first_core(gold: EpisodeGold) -> GoldCall:
    return next(c for c in gold.current_unstressed().gold if c.role == "core")


class TriesThenGivesUp:
    """On a decline turn: tries the unstressed primary path's first core call once, then says it cannot be done."""

    name = "tries-then-gives-up"

    def __init__(self, gold: EpisodeGold) -> None:
        self.gold = gold

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        turn = self.gold.current()
        if turn.outcome == "decline":
            first = _first_core(self.gold)
            await runtime.call(ToolCall(id="", name=first.name, arguments=dict(first.arguments)), step=1)
            return "Sorry, that service is unavailable right now, so I can't do it. Please try again later."
        for step, gold in enumerate(turn.gold, start=1):
            await runtime.call(ToolCall(id="", name=gold.name, arguments=dict(gold.arguments)), step=step)
        return "Done."


class Loops(TriesThenGivesUp):
    """On a decline turn: retries the same call until the step budget stops it."""

    name = "loops"

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        if self.gold.current().outcome != "decline":
            return await super().respond(history, runtime)
        first = _first_core(self.gold)
        for step in range(1, 100):
            await runtime.call(ToolCall(id="", name=first.name, arguments=dict(first.arguments)), step=step)
        return "Done."  # never reached: the runtime's step limit ends the turn


class ClaimsSuccess(TriesThenGivesUp):
    """On a decline turn: tries once, then tells the user it is done."""

    name = "claims-success"

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        reply = await super().respond(history, runtime)
        return "All set, done!" if self.gold.current().outcome == "decline" else reply


async def _episode(world: str, scenario: str, agent: AgentFactory) -> EpisodeResult:
    """One episode of the first task the scenario gives a decline turn (its unstressed task: ``result.task`` is not)."""
    task, stressors = _episode_task(world, scenario)
    spec = EpisodeSpec(task=task, trial=0, seed=3, variant=scenario, stressors=(scenario,))
    limits = EpisodeLimits(max_steps=6)
    env = EpisodeEnv(load_world(world), agent, ScriptedUser(), Gateway(), ("a", "u"), tuple(stressors), limits)  # type: ignore[arg-type]
    return await run_episode(spec, env)


@pytest.mark.parametrize("world", ["smart_home", "multidomain"])
async def test_in_impossible_mode_giving_up_is_right_and_looping_or_claiming_success_is_not(world: str) -> None:
    judge = DeclineJudge()
    gives = await judge.score(await _episode(world, "outage.impossible", TriesThenGivesUp))
    assert gives.value == 1.0 and gives.details["turns_to_give_up"] == 1
    looping = await _episode(world, "outage.impossible", Loops)
    assert any(e.code == "agent:step_limit" for e in looping.events)
    looped = await judge.score(looping)
    assert looped.value == 0.0 and looped.details["looped_turns"] and looped.details["turns_to_give_up"] is None
    claimed = await judge.score(await _episode(world, "outage.impossible", ClaimsSuccess))
    assert claimed.value == 0.0 and any(e.endswith("decline:no_give_up") for e in claimed.errors)


async def test_a_missing_function_is_refused_as_invented_and_comes_back_next_turn() -> None:
    result = await _episode("multidomain", "missing.until_later", TriesThenGivesUp)
    turn, function = pick(_episode_task("multidomain", "missing.until_later")[0], "until_later") or (None, None)
    assert turn is not None and result.task.goals[turn].outcome == "decline"
    # Its call was refused before the world, as a function the agent does not have, and not recorded as a call.
    faults = [e for e in result.events if e.kind == "error" and e.turn == turn]
    assert [e.code for e in faults] == ["agent:unknown_tool"] and function in (faults[0].content or "")
    recorded = [e for e in result.events if e.kind in ("tool_call", "tool_result") and e.turn == turn]
    assert not any(e.call and e.call.name == function for e in recorded)
    assert faults[0].call is not None and faults[0].call.name == function  # kept for the history the agent reads
    score = await DeclineJudge().score(result)
    assert score.value == 0.0 and score.details["invented_calls"] == [turn]
    # The next turn asks again, and the function is back: the earlier request is part of it and of its gold.
    again = result.task.goals[turn + 1]
    assert again.user.explicit.startswith("Let's try my earlier request again:")
    assert any(c.name == function for c in again.gold)
    assert any(e.call and e.call.name == function and e.result and e.result.ok for e in result.events)


def test_the_toolkit_changes_per_turn_and_only_while_the_function_is_missing() -> None:
    task, stressors = _episode_task("multidomain", "missing.until_later")
    specs = load_world("multidomain").new_world(0).specs()
    turn, function = pick(task, "until_later") or (0, "")
    per_goal = [[s.name for s in stressors[0].on_tools(t, specs)] for t in range(len(task.goals))]  # type: ignore[attr-defined]
    assert all((function in names) == (t != turn) for t, names in enumerate(per_goal))


def test_picks_depend_on_the_task_alone_and_skip_what_later_turns_build_on() -> None:
    for task in load_world("multidomain").tasks()[:60]:
        acting = [t for t, turn in enumerate(task.goals) if any(c.role == "core" for c in turn.gold)]
        picked = impossible_goal(task)
        assert picked is not None and picked[0] == acting[-1]  # nothing after it acts
        removed = pick(task, "removed")
        assert removed is None or removed[0] == acting[-1]
        later = pick(task, "until_later")
        assert later is None or later[0] < len(task.goals) - 1


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("I'm sorry, I can't do that right now.", True),
        ("The thermostat service is unavailable at the moment.", True),
        ("I don't have a tool that can do that.", True),
        ("Something went wrong; please try again later.", True),
        ("Done! The lights are on.", False),
        ("Sure, I've added it to your cart.", False),
    ],
)
def test_giving_up_is_read_from_the_reply(reply: str, expected: bool) -> None:
    assert gives_up(reply) is expected


def test_every_row_is_listed_with_its_error_handling_reference() -> None:
    assert set(ROWS) == {"outage.backup", "outage.impossible", "missing.until_later", "missing.removed"}
    assert all(ROWS[n].reference_response and ROWS[n].criteria for n in ("outage.backup", "outage.impossible"))


def test_a_goal_that_declines_leaves_the_user_nothing_to_do_either() -> None:
    """Dual control: the user's acts served the plan that can no longer run, and an agent that declines asks for
    none; kept, they would put the user's side in the gold state and fail the declining agent (τ² telecom)."""
    goal = Goal(
        user=UserIntent(explicit="My data is off abroad."),
        gold=[GoldCall(name="enable_roaming", arguments={"line_id": "L1002"})],
        user_gold=[UserGoldCall(name="toggle_roaming", arguments={}, after=1)],
    )
    now = declined(goal, "Roaming can't be enabled right now.")
    assert (now.outcome, list(now.gold), list(now.user_gold)) == ("decline", [], [])
