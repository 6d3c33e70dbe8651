"""The two setups really differ on the multi-domain conversations: an agent that skips turn 2 (index 1) and
follows the gold everywhere else loses later turns only when it lives with its own history."""

from __future__ import annotations

from collections.abc import Sequence

from judges.calls.arg_match import ArgMatcher
from judges.calls.core_api import CoreApiAccuracy
from personas.scripted import ScriptedUser
from sim.core import AgentRuntime, EpisodeGold, Event, ToolCall
from sim.episode.env import EpisodeEnv, EpisodeSpec
from sim.episode.gold_history import Setup
from sim.episode.loop import run_episode
from sim.llm.gateway import Gateway
from worlds.registry import load_world

PACK = load_world("multidomain")
CONVERSATIONS = 60


class SkipsSecondTurn:
    """Calls nothing in turn index 1, so nothing that turn looks up or changes exists later; gold elsewhere."""

    name = "skips-turn-1"

    def __init__(self, gold: EpisodeGold) -> None:
        self.gold = gold

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        if runtime.turn != 1:
            for step, gold in enumerate(self.gold.task.goals[runtime.turn].gold, start=1):
                await runtime.call(ToolCall(id="", name=gold.name, arguments=dict(gold.arguments)), step=step)
        return "Done."


async def _later_turn_scores(setup: Setup) -> list[float]:
    judge = CoreApiAccuracy(ArgMatcher())
    scores: list[float] = []
    for task in PACK.tasks()[:CONVERSATIONS]:
        spec = EpisodeSpec(task=task, trial=0, seed=0)
        env = EpisodeEnv(PACK, SkipsSecondTurn, ScriptedUser(), Gateway(), ("a", "u"), setup=setup)
        result = await run_episode(spec, env)
        assert result.termination == "completed"
        scores.extend(v for v in (await judge.score(result)).per_goal[2:] if v is not None)
    return scores


async def test_skipping_turn_two_costs_later_turns_only_in_cumulative() -> None:
    isolated = await _later_turn_scores("isolated")
    cumulative = await _later_turn_scores("cumulative")
    assert len(isolated) == len(cumulative) > 100
    assert sum(isolated) == len(isolated)  # every later turn starts from the gold state and history
    # Later turns that act on what turn 2 looked up (ids it never saw) or changed fail on the agent's own state.
    assert sum(cumulative) < 0.95 * len(cumulative)
