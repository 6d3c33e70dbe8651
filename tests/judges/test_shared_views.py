"""Views kept across episodes for the goals and tool specs a run shares (``judges.common.shared_views``) change no
Score."""

from __future__ import annotations

from judges.common.shared_views import of_object, of_toolkit
from personas import ScriptedUser, parse_user_spec
from sim.agents.baselines import NaiveAgent, OracleAgent
from sim.config.run_config import RunConfig
from sim.core import AgentFactory, EpisodeResult
from sim.episode.env import EpisodeEnv, EpisodeSpec
from sim.episode.loop import run_episode
from sim.judging.judge_set import build_judges, judge
from sim.llm.gateway import Gateway
from worlds.registry import load_world
from worlds.stressors.catalog import build_stressors


async def _trials(world: str, agent: AgentFactory, stressors: list[str]) -> list[EpisodeResult]:
    """Two trials of each of a world's first tasks, played as a run plays them: one task object for its trials."""
    pack = load_world(world)
    tools = [s.name for s in pack.tool_specs()]
    out = []
    for index, task in enumerate(pack.tasks()[:3]):
        for trial in range(2):
            chain = tuple(build_stressors(stressors, index, tools)) if stressors else ()
            env = EpisodeEnv(pack, agent, ScriptedUser(parse_user_spec("scripted")), Gateway(), ("a", "u"), chain)
            out.append(await run_episode(EpisodeSpec(task=task, trial=trial, seed=index), env))
    return out


async def test_episodes_sharing_a_run_objects_get_the_scores_of_traces_parsed_apart() -> None:
    judges = build_judges(RunConfig(error_judge="off"))
    played = [
        *await _trials("smart_home", OracleAgent, []),
        *await _trials("smart_home", NaiveAgent, ["failure", "drift"]),
        *await _trials("sql_sample", NaiveAgent, []),
    ]
    assert played[0].task is played[1].task  # what the kept views rely on: a run's trials share the task
    for result in played:
        shared = await judge(result, judges, "set")
        apart = await judge(EpisodeResult.model_validate_json(result.model_dump_json()), judges, "set")
        assert [s.model_dump_json() for s in shared] == [s.model_dump_json() for s in apart], result.episode_id


def test_a_view_is_kept_per_object_and_per_toolkit_of_the_same_specs() -> None:
    first, second = [1], [1]
    assert of_object(first, "k", lambda: "a") == "a"
    assert of_object(first, "k", lambda: "b") == "a"  # kept
    assert of_object(second, "k", lambda: "b") == "b"  # an equal object is another object
    specs = [object(), object()]
    assert of_toolkit(list(specs), "t", lambda: 1) == 1
    assert of_toolkit(list(specs), "t", lambda: 2) == 1  # another list of the same specs: the same toolkit
    assert of_toolkit([*specs, object()], "t", lambda: 3) == 3
