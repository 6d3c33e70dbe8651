"""The state judge: the world after the agent's calls against the world after the gold's, per goal and at the end;
collateral damage; reads that never count; numbers compared by value."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import partial

import pytest

from judges.calls.state import StateMatch, judge_goal_state
from personas import ScriptedUser, parse_user_spec
from sim.agents.baselines import NaiveAgent, OracleAgent
from sim.core import AgentFactory, AgentRuntime, EpisodeGold, EpisodeResult, Event, GoalState, ToolCall
from sim.core.task_state import ABSENT, changed, flatten, same
from sim.episode.env import EpisodeEnv, EpisodeSpec
from sim.episode.gold_history import Setup
from sim.episode.loop import run_episode
from sim.llm.gateway import Gateway
from worlds.common.tables import BaseData, Tables
from worlds.registry import load_world
from worlds.stressors.catalog import build_stressors

HOME = load_world("smart_home")


async def play(
    agent: AgentFactory, task_index: int = 0, setup: Setup = "cumulative", pack: object = HOME
) -> EpisodeResult:
    task = pack.tasks()[task_index]  # type: ignore[attr-defined]
    spec = EpisodeSpec(task=task, trial=0, seed=5)
    user = ScriptedUser(parse_user_spec("scripted"))
    return await run_episode(spec, EpisodeEnv(pack, agent, user, Gateway(), ("a", "u"), setup=setup))  # type: ignore[arg-type]


class OracleThen:
    """The oracle, then one more call of its own on the first goal (a lookup, or a write nobody asked for)."""

    name = "oracle-then"

    def __init__(self, extra: ToolCall, gold: EpisodeGold) -> None:
        self.extra = extra
        self.gold = gold
        self.oracle = OracleAgent(gold)

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        reply = await self.oracle.respond(history, runtime)
        if self.gold.goal == 0:
            assert (await runtime.call(self.extra, step=20)).ok
        return reply


def test_numbers_compare_by_value_and_bools_are_not_numbers() -> None:
    assert same(25, 25.0) and same({"a": [1, 2.0]}, {"a": [1.0, 2]})
    assert not same(True, 1) and not same("25", 25)
    assert changed({"x": 25, "y": "a"}, {"x": 25.0, "z": 1}) == {"y": ABSENT, "z": 1}


def test_flatten_names_entities_by_id() -> None:
    flat = flatten({"devices": [{"id": "lamp", "on": True, "level": 3}], "mode": "eco", "tags": [1, 2]})
    assert flat == {"devices/lamp.on": True, "devices/lamp.level": 3, "mode": "eco", "tags": [1, 2]}


def test_tables_changes_are_what_differs_from_the_base() -> None:
    tables = Tables(BaseData({"t": {"a": {"n": 1, "s": "x"}, "b": {"n": 2}}}))
    tables.put("t", "a", {"n": 5, "s": "x"})
    tables.put("t", "b", {"n": 2})  # written back unchanged: no change
    tables.put("t", "c", {"n": 7})
    tables.delete("t", "b")
    assert tables.changes() == {"t/a.n": 5, "t/c.n": 7, "t/b": ABSENT}
    tables.put("t", "a", {"n": 1, "s": "x"})  # changed back: no change
    assert "t/a.n" not in tables.changes()


def test_a_goal_verdict_names_missing_wrong_and_collateral_paths() -> None:
    state = GoalState(
        goal=0,
        before={},
        after={"lamp.level": 30.0, "door.locked": True, "fan.on": True},
        gold_before={},
        gold_after={"lamp.level": 30, "door.locked": False, "blind.pos": 50},
    )
    verdict = judge_goal_state(state)
    assert verdict is not None and verdict.applicable
    assert verdict.missing == ["blind.pos"] and verdict.wrong == ["door.locked"] and verdict.collateral == ["fan.on"]
    quiet = judge_goal_state(GoalState(goal=1, before={"a": 1}, after={"a": 1}, gold_before={}, gold_after={}))
    assert quiet is not None and not quiet.applicable  # nothing at stake: a question, answered by reading


async def test_the_oracle_matches_the_gold_state_on_every_goal() -> None:
    for setup in ("cumulative", "isolated"):
        result = await play(OracleAgent, setup=setup)  # type: ignore[arg-type]
        assert [s.goal for s in result.goal_states] == [0, 1, 2, 3]
        score = await StateMatch().score(result)
        assert score.value == 1.0 and score.per_goal == [1.0, 1.0, 1.0, 1.0], (setup, score.errors)
        assert score.details["end_match"] is True and score.details["collateral"] == 0


async def test_an_extra_lookup_never_counts_but_an_extra_write_is_collateral_damage() -> None:
    looked = await StateMatch().score(await play(partial(OracleThen, ToolCall(id="", name="list_rooms", arguments={}))))
    assert looked.value == 1.0  # a state hash of the call log would have failed it
    write = ToolCall(id="", name="set_power", arguments={"device_id": "kitchen_coffee_maker", "on": True})
    damaged = await StateMatch().score(await play(partial(OracleThen, write)))
    assert damaged.per_goal[0] == 0.0 and damaged.per_goal[1:] == [1.0, 1.0, 1.0]
    assert "goal0:state:collateral" in damaged.errors
    assert damaged.details["goals"]["0"] == {"collateral": ["devices/kitchen_coffee_maker.power"]}
    assert damaged.details["end_match"] is False
    assert damaged.details["collateral_paths"] == ["devices/kitchen_coffee_maker.power"]


async def test_an_agent_that_does_nothing_misses_the_changes_but_state_is_what_is_judged() -> None:
    from sim.agents.baselines import NullAgent

    score = await StateMatch().score(await play(NullAgent))
    assert score.per_goal[:3] == [0.0, 0.0, 0.0] and "goal0:state:missing_change" in score.errors
    # The last goal turns the light off again: a light never turned on is off, as the gold leaves it.
    assert score.per_goal[3] == 1.0 and score.details["end_match"] is False


async def test_the_naive_agent_is_judged_on_the_multidomain_world_too() -> None:
    pack = load_world("multidomain")
    oracle = await StateMatch().score(await play(OracleAgent, pack=pack))
    naive = await StateMatch().score(await play(NaiveAgent, pack=pack))
    assert oracle.value == 1.0
    assert naive.value is not None


async def test_worlds_without_a_task_state_are_not_judged() -> None:
    result = await play(OracleAgent)
    bare = result.model_copy(update={"goal_states": []})  # a trace from before states, or a read-only SQL world
    assert (await StateMatch().score(bare)).value is None


def test_a_deleted_row_is_a_change_the_judge_sees() -> None:
    # Changes-from-base states: a path not listed is as at the base; ABSENT says the base's row is gone.
    asked = GoalState(goal=0, before={}, after={"alarms/a1": ABSENT}, gold_before={}, gold_after={"alarms/a1": ABSENT})
    verdict = judge_goal_state(asked)
    assert verdict is not None and verdict.applicable and verdict.matched
    kept = judge_goal_state(asked.model_copy(update={"after": {}}))
    assert kept is not None and kept.missing == ["alarms/a1"]
    extra = judge_goal_state(GoalState(goal=0, before={}, after={"messages/m9": ABSENT}, gold_before={}, gold_after={}))
    assert extra is not None and extra.collateral == ["messages/m9"]


async def test_a_deletion_in_the_multidomain_world_reaches_the_trace_and_the_verdict() -> None:
    pack = load_world("multidomain")
    task = next(
        t for t in pack.tasks() for turn in t.goals for c in turn.gold if c.name.startswith(("delete", "remove"))
    )
    oracle = await play(OracleAgent, task_index=pack.tasks().index(task), pack=pack)
    deleted = [p for s in oracle.goal_states for p, v in s.gold_after.items() if v == ABSENT]  # type: ignore[union-attr]
    assert deleted, "the gold deletes a row"
    assert (await StateMatch().score(oracle)).value == 1.0
    from sim.agents.baselines import NullAgent

    idle = await StateMatch().score(await play(NullAgent, task_index=pack.tasks().index(task), pack=pack))
    assert "goal" in " ".join(idle.errors) and any(
        deleted[0] in paths for g in idle.details["goals"].values() for paths in g.values()
    )


async def test_stored_states_are_cut_to_the_judged_paths_without_changing_a_verdict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sim.episode.state_track

    pack = load_world("multidomain")
    tool_names = [s.name for s in pack.new_world(0).specs()]
    stressors = build_stressors(["outage", "outage.impossible", "failure.any_tool"], 4, tool_names)

    async def verdicts() -> list[tuple[float | None, list[float | None], list[str], int]]:
        out = []
        for index in range(12):
            for agent in (NaiveAgent, OracleAgent):
                task = pack.tasks()[index]
                user = ScriptedUser(parse_user_spec("scripted"))
                episode_stressors = build_stressors(["outage", "outage.impossible", "failure.any_tool"], 4, tool_names)
                env = EpisodeEnv(pack, agent, user, Gateway(), ("a", "u"), tuple(episode_stressors))
                result = await run_episode(EpisodeSpec(task=task, trial=0, seed=4), env)
                score = await StateMatch().score(result)
                size = len(json.dumps([s.model_dump() for s in result.goal_states]))
                out.append((score.value, score.per_goal, score.errors, size))
        return out

    assert stressors
    cut = await verdicts()
    monkeypatch.setattr(sim.episode.state_track, "_compact", lambda state, whole: state)
    whole = await verdicts()
    assert [v[:3] for v in cut] == [v[:3] for v in whole]
    assert sum(v[3] for v in cut) < 0.8 * sum(v[3] for v in whole)
