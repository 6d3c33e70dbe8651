"""What an agent may read: the runtime carries no task; calibration agents get the episode's gold from their factory,
and follow the user's goal through it. The gold's task states are cached by whoever owns the run, not the module."""

from __future__ import annotations

from collections.abc import Sequence

from personas import ScriptedUser, parse_user_spec
from sim.agents.baselines import NaiveAgent, NullAgent, OracleAgent
from sim.agents.factory import AgentSpec, open_agent_factory
from sim.core import AgentRuntime, EpisodeGold, EpisodeResult, Event, shared_agent
from sim.core.protocols import AgentRuntime as RuntimeProtocol
from sim.episode.env import EpisodeEnv, EpisodeSpec
from sim.episode.loop import run_episode
from sim.episode.state_track import GoldStateCache, StateTracker
from sim.llm.gateway import Gateway
from worlds.registry import load_world

PACK = load_world("smart_home")
TASK = PACK.tasks()[0]


def test_the_runtime_an_agent_sees_has_no_task_and_no_goal() -> None:
    members = {name for name in dir(RuntimeProtocol) if not name.startswith("_")}
    assert members == {"turn", "instructions", "llm", "seed", "current_tools", "call", "fault"}


class Watches:
    """Records what each turn's gold handle and runtime say, and the instructions it was given."""

    name = "watches"

    def __init__(self, gold: EpisodeGold) -> None:
        self.gold = gold
        self.seen: list[tuple[int, int, str]] = []
        built.append(self)

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        said = next(ev for ev in reversed(history) if ev.kind == "user_message")
        assert said.goal == self.gold.goal and self.gold.current() is self.gold.task.goals[self.gold.goal]
        self.seen.append((runtime.turn, self.gold.goal, runtime.instructions))
        return "Which one do you mean?" if runtime.turn == 0 else "Done."


built: list[Watches] = []


async def play(agent: object, user: str = "scripted", setup: str = "cumulative") -> EpisodeResult:
    env = EpisodeEnv(PACK, agent, ScriptedUser(parse_user_spec(user)), Gateway(), ("a", user), setup=setup)  # type: ignore[arg-type]
    return await run_episode(EpisodeSpec(task=TASK, trial=0, seed=3), env)


async def test_a_calibration_agent_is_built_per_episode_and_follows_the_users_goal_through_its_gold() -> None:
    built.clear()
    result = await play(Watches, "scripted:explicit")  # answers a question: two turns on the first goal
    await play(Watches)
    first, second = built
    assert first is not second and first.gold.task == result.task and first.gold.unstressed == TASK
    assert [(turn, goal) for turn, goal, _ in first.seen][:3] == [(0, 0), (1, 0), (2, 1)]
    assert {text for _, _, text in first.seen} == {result.instructions} and result.instructions


async def test_the_factories_of_a_run_bind_calibration_agents_and_share_a_model_agent() -> None:
    gold = EpisodeGold(TASK, TASK)
    for kind, cls in (("oracle", OracleAgent), ("naive", NaiveAgent), ("null", NullAgent)):
        async with open_agent_factory(AgentSpec(kind), Gateway(), None, None) as factory:  # type: ignore[arg-type]
            one, two = factory(gold), factory(gold)
            assert isinstance(one, cls) and one is not two
    agent = NullAgent(gold)
    assert shared_agent(agent)(gold) is shared_agent(agent)(EpisodeGold(TASK, TASK)) is agent


async def test_the_naive_agent_reads_the_unstressed_goal_and_the_oracle_the_stressed_one() -> None:
    stressed = TASK.model_copy(update={"goals": [g.model_copy(update={"gold": []}) for g in TASK.goals]})
    gold = EpisodeGold(stressed, TASK, lambda: 1)
    assert gold.goal == 1 and gold.current().gold == [] and gold.current_unstressed() == TASK.goals[1]
    assert EpisodeGold(TASK, TASK).goal == 0  # outside an episode: the first goal


async def test_episodes_sharing_a_cache_replay_the_gold_once_and_judge_the_same() -> None:
    replays: list[int] = []

    class Counting(StateTracker):
        async def _replay_goals(self, last: int) -> list[dict[str, object] | None]:  # type: ignore[override]
            replays.append(last)
            return await super()._replay_goals(last)

    cache = GoldStateCache()
    world = PACK.new_world(3)
    states = []
    for _ in range(3):
        tracker = Counting(PACK, 3, TASK, world, cache=cache)
        tracker.begin(0, world)
        tracker.end(world)
        states.append(await tracker.states())
    assert replays == [len(TASK.goals) - 1]  # the whole task once, then from the cache
    uncached = Counting(PACK, 3, TASK, world)
    uncached.begin(0, world)
    uncached.end(world)
    assert await uncached.states() == states[0] == states[2] and replays[-1] == 0  # no cache: only what it needs
    assert GoldStateCache().get(PACK, "anything") is None  # a new owner starts empty: nothing lives in the module


def test_the_cache_drops_the_least_recently_used_entry_and_never_answers_for_another_pack() -> None:
    cache = GoldStateCache(size=2)
    cache.put(PACK, "a", [{"x": 1}])
    cache.put(PACK, "b", [{"x": 2}])
    assert cache.get(PACK, "a") == [{"x": 1}]  # a is now the most recent
    cache.put(PACK, "c", [{"x": 3}])
    assert cache.get(PACK, "b") is None and cache.get(PACK, "a") == [{"x": 1}]
    assert cache.get(load_world("multidomain"), "a") is None


async def test_the_oracle_still_plays_and_records_every_goal_in_both_setups() -> None:
    for setup in ("cumulative", "isolated"):
        result = await play(OracleAgent, setup=setup)
        assert result.termination == "completed" and result.goals_played == len(TASK.goals)
        assert [s.goal for s in result.goal_states] == list(range(len(TASK.goals)))
