"""The two setups of the reference study: cumulative (the agent's own history) and isolated (gold history per turn)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judges.calls.arg_match import ArgMatcher
from judges.calls.core_api import CoreApiAccuracy
from personas.scripted import ScriptedUser
from sim.cli.app import app
from sim.config.resolve import resolve_config
from sim.config.run_config import ConfigError, RunConfig
from sim.core import AgentFactory, AgentRuntime, EpisodeGold, EpisodeResult, Event, ToolCall
from sim.episode.env import EpisodeEnv, EpisodeSpec
from sim.episode.gold_history import Setup, gold_reply
from sim.episode.loop import run_episode
from sim.llm.gateway import Gateway
from sim.run.runner import execute
from sim.store.run_store import StoreError
from worlds.registry import load_world

PACK = load_world("smart_home")
SETUPS: tuple[Setup, ...] = ("cumulative", "isolated")


class WrongOnSecondTurn:
    """Replays the gold path, except in turn index 1 where it switches off every device that turn's gold touches
    (a wrong call that leaves the home in a state later turns may depend on; calls nothing where the turn names no
    device). Records what it was handed."""

    name = "wrong-on-turn-1"

    def __init__(self) -> None:
        self.handed: list[list[Event]] = []
        self.gold: EpisodeGold | None = None

    def for_episode(self, gold: EpisodeGold) -> WrongOnSecondTurn:
        """The agent factory: this one agent, bound to the episode's gold (so a test can read what it was handed)."""
        self.gold = gold
        return self

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        self.handed.append(list(history))
        assert self.gold is not None
        gold = self.gold.task.goals[runtime.turn].gold
        if runtime.turn == 1:
            devices = dict.fromkeys(c.arguments["device_id"] for c in gold if "device_id" in c.arguments)
            # Off, or on where the gold itself switches the device off: never the right call.
            asked_off = {c.arguments["device_id"] for c in gold if c.name == "set_power" and not c.arguments["on"]}
            calls = [
                ToolCall(id="", name="set_power", arguments={"device_id": d, "on": d in asked_off}) for d in devices
            ]
        else:
            calls = [ToolCall(id="", name=c.name, arguments=dict(c.arguments)) for c in gold]
        for step, call in enumerate(calls, start=1):
            await runtime.call(call, step=step)
        return "Done."


async def play(agent: AgentFactory, setup: Setup, task_index: int = 0) -> EpisodeResult:
    spec = EpisodeSpec(task=PACK.tasks()[task_index], trial=0, seed=3)
    return await run_episode(spec, EpisodeEnv(PACK, agent, ScriptedUser(), Gateway(), ("a", "u"), setup=setup))


@pytest.mark.parametrize("setup", SETUPS)
async def test_oracle_scores_one_and_null_zero_in_both_setups(tmp_path: Path, setup: Setup) -> None:
    for agent, expected in (("oracle", 1.0), ("null", 0.0)):
        cfg = RunConfig.model_validate({"out": tmp_path, "run_id": f"{agent}-{setup}", "agent": agent, "setup": setup})
        store, summary = await execute(cfg)
        assert summary["episodes"] == len(PACK.tasks()) and summary["failed_episodes"] == 0
        assert summary["core_api_accuracy"] == expected and summary["conversation_success"] == expected
        assert summary["setup"] == setup
        assert store.manifest()["config"]["setup"] == setup
        replayed = sum(e.replayed for ep in store.episodes() for e in ep.events)
        assert (replayed > 0) == (setup == "isolated")


async def test_a_mistake_in_turn_two_contaminates_later_turns_only_in_cumulative() -> None:
    judge = CoreApiAccuracy(ArgMatcher())
    later: dict[Setup, list[float]] = {}
    for setup in SETUPS:
        per_goal = []
        for i in range(len(PACK.tasks())):
            result = await play(WrongOnSecondTurn().for_episode, setup, i)
            assert result.termination == "completed"
            score = await judge.score(result)
            assert score.per_goal[0] == 1.0 and score.per_goal[1] != 1.0  # the same in both setups
            per_goal.extend(v for v in score.per_goal[2:] if v is not None)
        later[setup] = per_goal
    # Isolated: every later turn starts from the gold state, so the gold calls of later turns all succeed.
    assert later["isolated"] == [1.0] * len(later["isolated"])
    # Cumulative: the light switched off in turn 1 of sh-001 refuses its brightness change in turn 2; the
    # thermostat of sh-004, never set to heat, refuses its temperature. Other tasks' later turns do not depend on
    # what turn 1 changed. 11 scored later turns (turns 2+ with a core call) over the 10 tasks.
    assert len(later["cumulative"]) == len(later["isolated"]) == 11
    assert sum(later["isolated"]) == 11.0
    assert sum(later["cumulative"]) == 9.0


async def test_isolated_hands_the_gold_history_and_judges_skip_it() -> None:
    agent = WrongOnSecondTurn()
    result = await play(agent.for_episode, "isolated")
    task = result.task
    handed = agent.handed[2]  # what the agent saw for turn 2, after its mistake in turn 1
    assert [e.kind for e in handed].count("user_message") == 3
    assert all(e.replayed for e in handed if e.kind != "user_message")
    calls = [e.call.name for e in handed if e.kind == "tool_call" and e.call]
    assert calls == [c.name for c in task.goals[0].gold + task.goals[1].gold]  # gold, not its set_power(off)
    replies = [e.content for e in handed if e.kind == "agent_message"]
    assert replies == [gold_reply(task.goals[0]), gold_reply(task.goals[1])]
    assert all(e.result and e.result.ok for e in handed if e.kind == "tool_result")  # real results of the replay
    # The agent's own mistake stays in the trace, unmarked.
    own = [e for e in result.events if e.kind == "tool_call" and e.turn == 1 and not e.replayed]
    assert [e.call.arguments.get("on") for e in own if e.call] == [False]
    # Judges read only the agent's events: drop the agent's turn-1 calls and the judge finds nothing there,
    # although the replayed gold of turn 1 is still in the trace.
    without_own = result.model_copy(
        update={"events": [e for e in result.events if e.replayed or e.turn != 1 or e.kind == "user_message"]}
    )
    score = await CoreApiAccuracy(ArgMatcher()).score(without_own)
    assert score.per_goal[1] == 0.0 and "goal1:core:missing:set_color" in score.errors


async def test_cumulative_hands_the_agent_its_own_history() -> None:
    agent = WrongOnSecondTurn()
    result = await play(agent.for_episode, "cumulative")
    assert not any(e.replayed for e in result.events)
    assert agent.handed[2] == result.events[: len(agent.handed[2])]


async def test_resume_of_an_isolated_run_keeps_the_setup(tmp_path: Path) -> None:
    base = {"out": tmp_path, "run_id": "r", "agent": "oracle", "setup": "isolated", "limit": 3}
    store, _ = await execute(RunConfig.model_validate(base))
    episodes = store.root / "episodes.jsonl"
    lines = episodes.read_text().splitlines(keepends=True)
    episodes.write_text("".join(lines[:-1]))  # as if the run died before storing its last episode
    cfg, _ = resolve_config(None, {"out": tmp_path, "run_id": "r", "resume": True})
    assert cfg.setup == "isolated"  # from the manifest: the resume named no setup
    store, summary = await execute(cfg)
    assert summary["episodes"] == 3 and summary["setup"] == "isolated" and summary["core_api_accuracy"] == 1.0
    rerun = json.loads((store.root / "episodes.jsonl").read_text().splitlines()[-1])
    assert any(e["replayed"] for e in rerun["events"])
    with pytest.raises((ConfigError, StoreError), match="config_hash"):
        await execute(RunConfig.model_validate({**base, "setup": "cumulative", "resume": True}))


def test_setup_from_the_command_line_and_toml(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["run", "--agent", "null", "--setup", "sideways", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "--setup" in result.output
    toml = tmp_path / "run.toml"
    toml.write_text('agent = "null"\nsetup = "isolated"\nlimit = 1\n')
    result = runner.invoke(app, ["run", "-c", str(toml), "--out", str(tmp_path), "--run-id", "t", "-q"])
    assert result.exit_code == 0, result.output
    assert "isolated" in result.output  # the report's setup row
    assert json.loads((tmp_path / "t" / "manifest.json").read_text())["config"]["setup"] == "isolated"
