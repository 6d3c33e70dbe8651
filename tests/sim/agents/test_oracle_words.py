"""The oracles' replies after an injected failure are their own words, never a reference response recited: under
every scenario that has one, no reply of the oracle (or the direct oracle) shares a run of ``RUN`` words with the
scenario's reference or the goal's (what the error-handling judge compares with); the words say what happened."""

from __future__ import annotations

import re
from functools import cache
from itertools import islice

import pytest

from personas import ScriptedUser, parse_user_spec
from sim.agents import oracle_words as words
from sim.agents.baselines import OracleAgent
from sim.agents.direct_agent import DirectOracle
from sim.core import AgentFactory, EpisodeResult, Task
from sim.episode.env import EpisodeEnv, EpisodeSpec
from sim.episode.loop import run_episode
from sim.llm.gateway import Gateway
from tests.support.world_cache import loaded_world as pack  # once per world, not per episode (nearly all the time)
from worlds.stressors import build_stressors, builtin_scenarios
from worlds.stressors.coverage import affected_goals
from worlds.stressors.scenario import Scenario

RUN = 6
"""Words in a row a reply may not share with a reference (a phrase like "try again later" is fine)."""
WORLDS = ("smart_home", "multidomain", "tau2:airline", "tau2:retail", "tau2:mock")
"""τ²'s domains for the failure rows they ship beside the world (worlds/tau2/data/scenarios.jsonl)."""
TASKS_PER_ROW = 2
ROWS = [s for s in builtin_scenarios() if s.reference_response or s.type == "missing"]
"""Rows with a reference of their own, and the missing-function rows, whose declined goals get the stressor's."""


def runs(text: str, n: int = RUN) -> set[tuple[str, ...]]:
    said = re.findall(r"[a-z0-9_']+", text.lower().replace("’", "'"))
    return {tuple(said[i : i + n]) for i in range(len(said) - n + 1)}


@cache
def tool_names(world: str) -> tuple[str, ...]:
    return tuple(s.name for s in pack(world).new_world(0).specs())


@cache
def touched(name: str) -> list[tuple[str, Task]]:
    """The first tasks of each world the scenario touches (a few: every reply kind is met on the first ones)."""
    row = next(s for s in ROWS if s.name == name)
    found = []
    for world in WORLDS:
        found += [(world, t) for t in islice((t for t in pack(world).tasks() if affected_goals(t, row)), TASKS_PER_ROW)]
    return found


async def play(world: str, task: Task, agent: AgentFactory, scenario: Scenario) -> EpisodeResult:
    user = ScriptedUser(parse_user_spec("scripted"))
    stressors = tuple(build_stressors([scenario.name], 3, tool_names(world)))
    env = EpisodeEnv(pack(world), agent, user, Gateway(), ("a", "u"), stressors)
    return await run_episode(EpisodeSpec(task=task, trial=0, seed=3), env)


def met_failure(result: EpisodeResult, goal: int) -> bool:
    return any(
        ev.kind == "tool_result" and ev.goal_index == goal and ev.scenarios and ev.result and not ev.result.ok
        for ev in result.events
    )


@pytest.mark.slow
@pytest.mark.parametrize("agent", [OracleAgent, DirectOracle], ids=["oracle", "direct_oracle"])
async def test_no_reply_recites_a_reference_response(agent: AgentFactory) -> None:
    after_failure = 0
    for row in ROWS:
        for world, task in touched(row.name):
            result = await play(world, task, agent, row)
            for g, goal in enumerate(result.task.goals):
                references = [r for r in (row.reference_response, goal.reference_response) if r]
                replies = [e.content or "" for e in result.events if e.goal_index == g and e.kind == "agent_message"]
                for reply, reference in ((r, ref) for r in replies for ref in references):
                    assert reference not in reply and not runs(reply) & runs(reference), (row.name, task.id, reply)
                after_failure += bool(replies) and (met_failure(result, g) or goal.outcome == "decline")
    assert after_failure >= 20  # the failure and outage rows made the oracles reply after a failure, many times
    # Every failure, outage and missing row is met (a limitation the shipped tasks never hit is its rewrite's business).
    assert all(touched(s.name) for s in ROWS if s.type != "limitation")


def test_the_words_say_which_call_failed_how_and_what_came_next() -> None:
    unavailable, timeout = words.Setback("set_power", "unavailable"), words.Setback("checkout", "timeout")
    backup = words.recovered("Done.", [unavailable], ["activate_scene"])
    assert (
        backup == "Done. Along the way the service to set power was unavailable, so I went another way: activate scene."
    )
    again = words.recovered("It is 12 °C.", [words.Setback("get_weather", "failed")], ["get_weather"])
    assert again.startswith("It is 12 °C. ") and "get weather returned an error at first" in again
    assert words.recovered("Done.", [], ["x"]) == "Done."  # nothing failed: the answer alone
    given_up = words.gave_up([unavailable, timeout], ["add_to_cart"])
    assert "set power was unavailable and the request to checkout timed out" in given_up and "add to cart" in given_up
    assert "may still have taken effect" in given_up  # a timeout may have acted: the user is told to check
    assert not re.search(r"\d", backup + again.removeprefix("It is 12 °C.") + given_up)  # no number for answer judges
    numbered = words.recovered("1101, 1247", [words.Setback("get_friend_student_id_2", "unavailable")], ["get_v2_ids"])
    assert numbered.endswith("the service to get friend student id was unavailable, so I went another way: get ids.")
    assert words.action("get_2") == "get" and words.action("v2") == "that function"
