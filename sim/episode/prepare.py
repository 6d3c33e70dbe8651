"""The episode's first phase: the world, the stressed task and docs, the gold's helpers, the runtime and the agent.

Anything here that raises is a broken world, stressor or agent factory: the loop records it as a setup fault of
this episode (``sim.episode.faults``), never of the run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sim.core import Agent, EpisodeGold, ReplayHook, Stressor, Task, ToolSpec, World, WorldContext
from sim.episode.deadline import WaitClock
from sim.episode.env import EpisodeEnv, EpisodeSpec
from sim.episode.gold_history import GoldHistory
from sim.episode.recorder import EventRecorder
from sim.episode.runtime import EpisodeRuntime
from sim.episode.state_track import StateTracker
from sim.episode.world_events import scheduled_changes
from sim.episode.world_llm import WorldLLM
from sim.llm.gateway import EpisodeLLM


@dataclass(frozen=True)
class PreparedEpisode:
    """What the conversation is played in: built once, before the user's first message."""

    world: World
    task: Task
    """The task after the stressors' rewrites: the gold the judges score against."""
    tools: list[ToolSpec]
    """The tool docs the agent is shown (after ``on_spec``)."""
    instructions: str
    gold_history: GoldHistory | None
    """The isolated setup's gold world and history (None: cumulative)."""
    states: StateTracker | None
    """The task states around each goal, for the state judge (None: the world has no task state)."""
    llm: EpisodeLLM
    waits: WaitClock
    runtime: EpisodeRuntime
    agent: Agent
    reworded: dict[int, list[str]] = field(default_factory=dict)
    """Goal index -> the scenarios that rewrote what the user says for it (``on_task``), recorded on the user's
    first message of the goal (taken from here as it is recorded) so the trace shows the swap."""


def prepare_episode(
    spec: EpisodeSpec, env: EpisodeEnv, rec: EventRecorder, goal_now: Callable[[], int]
) -> PreparedEpisode:
    """Build the episode; ``goal_now`` answers the goal the user is on (what a calibration agent's gold reads)."""
    llm = EpisodeLLM(env.gateway, env.limits.max_steps, rec.add, rec.clock, keep_calls=True)
    waits = WaitClock()
    llm.waiting = waits.waiting
    # Every world of the episode (the agent's, the isolated setup's, the state judge's gold) from one context.
    cache_mode = env.gateway.cache.mode if env.gateway.cache is not None else "off"
    context = WorldContext(task=spec.task, llm=WorldLLM(llm), cache_mode=cache_mode)
    world = env.pack.new_world(spec.seed, context)
    task = spec.task
    # Innermost first: the first stressor sees the agent's call first (sim.episode.runtime.chain), so it is the
    # last to rewrite the gold and the docs, which must be in the form that reaches it.
    reworded: dict[int, list[str]] = {}
    for s in reversed(env.stressors):
        before, task = task, s.on_task(task)
        for index, (old, new) in enumerate(zip(before.goals, task.goals, strict=False)):
            if old.user != new.user:
                reworded.setdefault(index, []).append(s.name)
    tools, instructions = world.specs(), world.instructions()
    for s in reversed(env.stressors):
        tools, instructions = s.on_spec(tools, instructions)
    gold_history = None
    if env.setup == "isolated":
        gold_history = GoldHistory(env.pack, spec.seed, task, tools, rec.add, rec.clock, context, env.stressors)
    changes = scheduled_changes(env.stressors)  # timed world events, known once on_task saw the task
    states = StateTracker.for_world(
        env.pack, spec.seed, task, world, unstressed=spec.task, cache=env.gold_states, context=context,
        world_changes=changes, replay_hooks=_replay_hooks(env.stressors) if changes else (),
    )  # fmt: skip
    runtime = EpisodeRuntime(
        world, env.stressors, tools, instructions, llm, rec.add, rec.clock, calls_per_turn(task, env.limits.max_steps),
        spec.seed,
        goal_toolkits={g: goal.tools for g, goal in enumerate(task.goals) if goal.tools is not None},
        episode_id=spec.episode_id, world_changes=changes,
    )  # fmt: skip
    agent = env.make_agent(EpisodeGold(task, spec.task, goal_now))
    return PreparedEpisode(world, task, tools, instructions, gold_history, states, llm, waits, runtime, agent, reworded)


def _replay_hooks(stressors: tuple[Stressor, ...]) -> tuple[ReplayHook, ...]:
    """The stressors that give a replayed gold call in the world's form, in ``on_call`` order (asked only when a
    world event needs the state judge's gold in that form: a runtime Protocol check per stressor costs)."""
    return tuple(s for s in stressors if isinstance(s, ReplayHook))


def calls_per_turn(task: Task, max_steps: int) -> int:
    """The tool calls a turn may make: ``max_steps``, but never fewer than a goal's longest solution path needs, with
    one lookup per function it uses (a tool search). A task whose gold takes more calls than the limit (BFCL has
    turns of 34 calls, which its models make in parallel within its 20 steps) would be unsolvable by the limit alone,
    not by the agent."""
    longest = max((len(path) + len({c.name for c in path}) for goal in task.goals for path in goal.paths()), default=0)
    return max(max_steps, longest)
