"""The clarification judge, and the report grouped by user: retention from explicit to coreferential users, paired
on the same goals, and user faults counted apart from agent faults."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from judges.answers.clarification import ClarificationJudge
from judges.run.run_summary import RunSummary
from personas import ScriptedUser, parse_user_spec
from sim.agents.baselines import NaiveAgent, OracleAgent
from sim.core import AgentFactory, AgentRuntime, EpisodeGold, EpisodeResult, Event
from sim.episode.env import EpisodeEnv, EpisodeSpec
from sim.episode.loop import run_episode
from sim.judging.judge_set import judge, judge_config_hash
from sim.judging.user_summary import user_summary
from sim.llm.gateway import Gateway
from sim.report.terminal import render
from sim.store.run_store import RunStore
from worlds.registry import load_world

PACK = load_world("smart_home")


async def play(task_index: int, user: str, agent: AgentFactory, trial: int = 0) -> EpisodeResult:
    task = PACK.tasks()[task_index]
    spec = EpisodeSpec(task=task, trial=trial, seed=11 + trial, user=user)
    return await run_episode(spec, EpisodeEnv(PACK, agent, ScriptedUser(parse_user_spec(user)), Gateway(), ("a", user)))


async def test_clarification_rewards_asking_and_catches_guessing() -> None:
    judge_ = ClarificationJudge()
    asked = await judge_.score(await play(0, "scripted:underspecified", OracleAgent))
    guessed = await judge_.score(await play(0, "scripted:underspecified", NaiveAgent))
    plain = await judge_.score(await play(0, "scripted", OracleAgent))
    assert asked.value == 1.0 and asked.per_goal == [1.0, 1.0, 1.0, None]  # goal 4 ("turn it off") has no value
    assert guessed.value == 0.0 and "goal0:clarify:guessed:set_brightness" in guessed.errors
    assert plain.value is None


class ExplicitOnly:
    """Acts only on a goal's explicit wording (the oracle's way); anything else gets a question back."""

    name = "explicit-only"

    def __init__(self, gold: EpisodeGold) -> None:
        self.gold = gold

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        said = next(ev.content for ev in reversed(history) if ev.kind == "user_message")
        if said == self.gold.current().user.explicit:
            return await OracleAgent(self.gold).respond(history, runtime)
        return "Sorry, which device do you mean?"


async def test_the_report_groups_by_user_and_shows_retention_on_coreferential_goals(tmp_path: Path) -> None:
    users = "scripted:explicit,scripted:coreferential"
    store = RunStore.create(tmp_path / "run", {"config_hash": "h", "config": {"user": users}})
    settings = {"version": "test"}
    score_set = judge_config_hash(settings)
    store.add_score_set(score_set, settings, "test")
    from sim.config.run_config import RunConfig
    from sim.judging.judge_set import build_judges

    judges = build_judges(RunConfig(agent="oracle"))
    for user in ("scripted:explicit", "scripted:coreferential"):
        for t in range(len(PACK.tasks())):
            result = await play(t, user, ExplicitOnly)
            store.append_episode(result)
            store.append_scores(await judge(result, judges, score_set))
    summary = user_summary(store, score_set)
    assert summary is not None and summary["baseline"] == "scripted:explicit"
    rows = {r["user"]: r for r in summary["by_user"]}
    assert rows["scripted:explicit"]["goal_accuracy"] == 1.0
    coref = rows["scripted:coreferential"]
    tasks = PACK.tasks()
    coref_goals = sum(
        1
        for t in tasks
        for g, turn in enumerate(t.goals)
        if g and turn.user.coreferential and any(c.role == "core" for c in turn.gold)  # scored goals only
    )
    retained = summary["explicit_to_coreferential"]
    assert retained["paired_goals"] == coref_goals and retained["ratio"] == 0.0  # every coreferential goal lost
    assert 0 < coref["retention"]["ratio"] < 1 and coref["turns_per_goal"] > 1  # the agent's questions cost turns
    lo, hi = coref["retention"]["ci95"]
    assert lo <= coref["retention"]["ratio"] <= hi
    assert coref["user_faults"] == 0 and coref["agent_faults"] == 0

    out = io.StringIO()
    render(
        RunSummary.model_validate(
            {
                "run_id": "r",
                "core_api_accuracy": None,
                "conversation_success": None,
                "episodes": 0,
                "failed_episodes": 0,
                "users": summary,
            }
        ),
        Console(file=out, width=160),
    )
    text = out.getvalue()
    assert "by user" in text and "explicit → coreferential retention (scripted:coreferential): 0.000" in text


async def test_user_faults_are_counted_apart_from_agent_faults(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", {"config_hash": "h", "config": {}})
    result = await play(0, "scripted", OracleAgent)
    slip = Event(kind="error", turn=0, goal=0, fault="user", code="user:assistant_like", content="Sure, I've done it")
    bad_call = Event(kind="error", turn=0, goal=0, fault="agent", code="agent:unknown_tool", content="x")
    store.append_episode(result.model_copy(update={"events": [slip, bad_call, *result.events]}))
    summary = user_summary(store, "none")
    assert summary is not None
    (row,) = summary["by_user"]
    assert row["user_faults_by_code"] == {"user:assistant_like": 1} and row["agent_faults"] == 1
