"""Judges sharing what they derive from a trace (``judges.common.episode_memo``) give the Scores each judge gives
alone."""

from __future__ import annotations

from judges.common.episode_memo import judging, memo
from judges.common.trace_view import agent_events
from personas import ScriptedUser, parse_user_spec
from sim.agents.baselines import NaiveAgent, NullAgent, OracleAgent
from sim.config.run_config import RunConfig
from sim.core import AgentFactory, EpisodeResult, Score
from sim.episode.env import EpisodeEnv, EpisodeSpec
from sim.episode.loop import run_episode
from sim.judging.judge_set import build_judges, judge
from sim.llm.gateway import Gateway
from worlds.registry import load_world
from worlds.stressors.catalog import build_stressors


async def _play(world: str, agent: AgentFactory, index: int, user: str, stressors: list[str]) -> EpisodeResult:
    pack = load_world(world)
    task = pack.tasks()[index]
    tools = [s.name for s in pack.tool_specs()]
    chain = tuple(build_stressors(stressors, index, tools)) if stressors else ()
    env = EpisodeEnv(pack, agent, ScriptedUser(parse_user_spec(user)), Gateway(), ("a", "u"), chain)
    return await run_episode(EpisodeSpec(task=task, trial=0, seed=index), env)


async def _episodes() -> list[EpisodeResult]:
    cases: list[tuple[str, AgentFactory, str, list[str]]] = [
        ("smart_home", OracleAgent, "scripted", []),
        ("smart_home", NullAgent, "scripted", []),
        ("smart_home", NaiveAgent, "scripted:changes_mind", ["failure", "drift", "lookalike"]),
        ("smart_home", NaiveAgent, "scripted:underspecified", ["outage", "failure.any_tool"]),
        ("sql_sample", NaiveAgent, "scripted", ["failure"]),
    ]
    return [await _play(w, agent, i, user, st) for w, agent, user, st in cases for i in range(4)]


def _dump(score: Score) -> tuple[str, frozenset[str]]:
    return score.model_dump_json(), frozenset(score.model_fields_set)


async def test_judged_together_every_score_is_the_one_each_judge_gives_alone() -> None:
    judges = build_judges(RunConfig(error_judge="off"))
    for result in await _episodes():
        together = await judge(result, judges, "set")
        alone = [(await j.score(result)).model_copy(update={"judge_config": "set"}) for j in judges]
        assert [_dump(s) for s in together] == [_dump(s) for s in alone], result.episode_id


async def test_the_memo_keeps_a_view_for_its_result_only_and_only_while_it_is_open() -> None:
    result, other = (await _episodes())[:2]
    assert agent_events(result, 0) is not agent_events(result, 0)  # nothing open: computed afresh
    with judging(result, "set") as opened:
        assert agent_events(result, 0) is agent_events(result, 0)
        assert agent_events(other, 0) is not agent_events(other, 0)  # another result's views are not kept
        assert memo(result, "k", lambda: 1) == 1 and memo(result, "k", lambda: 2) == 1
        assert opened.score_set == "set"
    assert memo(result, "k", lambda: 2) == 2
