"""The episode loop: user ⇄ agent ⇄ world, with limits and categorised failures."""

from __future__ import annotations

import asyncio
import time
import traceback
from collections.abc import Callable

from pydantic import BaseModel, Field

from sim.core import (
    Agent,
    EpisodeResult,
    Event,
    FaultKind,
    Stressor,
    Task,
    TerminationReason,
    User,
    UserContext,
    UserMessage,
    UserView,
    WorldContext,
    WorldPack,
)
from sim.episode.deadline import WaitClock, WorkingTimeDeadline
from sim.episode.gold_history import GoldHistory, GoldReplayError, Setup, isolated_history
from sim.episode.runtime import EpisodeRuntime
from sim.episode.state_track import StateTracker
from sim.episode.world_llm import WorldLLM
from sim.llm.errors import ContextLengthExceeded, ProviderError, StepLimitReached, is_model_misbehaviour
from sim.llm.gateway import EpisodeLLM, Gateway


class EpisodeLimits(BaseModel):
    """Budgets for one episode."""

    max_steps: int = Field(default=15, ge=1, description="Model requests (and tool calls) per turn.")
    max_turns: int = Field(default=20, ge=1, description="User turns per episode.")
    timeout_s: float = Field(default=600.0, gt=0, description="Wall-clock budget per episode.")


class EpisodeSpec(BaseModel):
    """One planned episode: a task, a trial number and the seed everything is built from."""

    task: Task
    trial: int
    seed: int
    variant: str = ""
    """Stressor-mode isolated: the scenario this episode runs alone ('' = the unstressed baseline, or any
    episode of a cumulative run)."""
    stressors: tuple[str, ...] | None = None
    """The stressor items of this episode; None: the run's."""
    user: str = ""
    """The user spec of this episode when the run has several ('' = the run's one user)."""

    @property
    def episode_id(self) -> str:
        base = f"{self.task.id}@{self.variant}" if self.variant else self.task.id
        return f"{base}~{self.user}#{self.trial}" if self.user else f"{base}#{self.trial}"


class _Recorder:
    def __init__(self, watch: Callable[[Event], None] | None = None) -> None:
        self.events: list[Event] = []
        self._start = time.monotonic()
        self._watch = watch

    def clock(self) -> float:
        return round(time.monotonic() - self._start, 4)

    def add(self, event: Event) -> None:
        self.events.append(event)
        if self._watch is not None:
            self._watch(event)


async def run_episode(
    spec: EpisodeSpec,
    pack: WorldPack,
    agent: Agent,
    user: User,
    stressors: list[Stressor],
    gateway: Gateway,
    limits: EpisodeLimits,
    labels: tuple[str, str],
    loop_lag: Callable[[], float] = lambda: 0.0,
    setup: Setup = "cumulative",
    watch: Callable[[Event], None] | None = None,
) -> EpisodeResult:
    """Play one episode to the end and return its full record. Never raises except on cancellation.

    ``setup``: cumulative hands the agent its own history; isolated hands it the gold one
    (``sim.episode.gold_history``).
    ``watch`` sees every event as it is recorded (``squall chat`` shows tool calls as they happen)."""
    rec = _Recorder(watch)
    result = EpisodeResult(
        episode_id=spec.episode_id,
        task_id=spec.task.id,
        trial=spec.trial,
        variant=spec.variant,
        seed=spec.seed,
        world=pack.name,
        agent=labels[0],
        user=labels[1],
        stressors=[s.name for s in stressors],
        task=spec.task,
        tools=[],
    )
    llm = EpisodeLLM(gateway, limits.max_steps, rec.add, rec.clock)
    waits = WaitClock()
    llm.waiting = waits.waiting
    try:
        # Every world of the episode (the agent's, the isolated setup's, the state judge's gold) from one context.
        context = WorldContext(task=spec.task, llm=WorldLLM(llm))
        world = pack.new_world(spec.seed, context)
        task = spec.task
        # Innermost first: the first stressor sees the agent's call first (sim.episode.runtime.chain), so it is the
        # last to rewrite the gold and the docs, which must be in the form that reaches it.
        for s in reversed(stressors):
            task = s.on_task(task)
        specs, instructions = world.specs(), world.instructions()
        for s in reversed(stressors):
            specs, instructions = s.on_spec(specs, instructions)
        gold = GoldHistory(pack, spec.seed, task, specs, rec.add, rec.clock, context) if setup == "isolated" else None
        states = StateTracker.for_world(pack, spec.seed, task, world, unstressed=spec.task, context=context)
    except Exception:  # a broken world or stressor fails this episode, not the whole run
        detail = traceback.format_exc(limit=8)[-2000:]
        result.events = [Event(kind="error", turn=0, fault="harness", code="harness:setup_failed", content=detail)]
        result.termination = "harness_error"
        return result
    result.task, result.tools, result.instructions = task, specs, instructions
    runtime = EpisodeRuntime(
        world, stressors, specs, task, llm, rec.add, rec.clock, limits.max_steps, spec.seed, unstressed_task=spec.task
    )

    goal = 0

    def error(turn: int, fault: FaultKind, code: str, detail: str) -> None:
        rec.add(Event(kind="error", turn=turn, goal=goal, t=rec.clock(), fault=fault, code=code, content=detail))

    termination: TerminationReason = "completed"
    turn = 0
    goals = len(task.goals)
    deadline = WorkingTimeDeadline(limits.timeout_s, waits.total, loop_lag)
    try:
        async with deadline:
            message: UserMessage | None
            try:
                message = await user.open(task, UserContext(seed=spec.seed, llm=llm))
            except ProviderError as exc:  # the user model's endpoint failed after retries: not the user's doing
                error(0, "provider", exc.code, str(exc))
                message, termination = None, "provider_error"
            except Exception as exc:
                error(0, "user", "user:open_failed", _describe(exc))
                message, termination = None, "user_error"
            while message is not None:
                if turn >= limits.max_turns:
                    termination = "turn_limit"
                    break
                if not 0 <= message.goal < goals:
                    error(turn, "user", "user:no_such_goal", f"goal {message.goal} of a task with {goals} goals")
                    termination = "user_error"
                    break
                new_goal, goal = message.goal != goal, message.goal
                for code, detail in message.slips:  # the simulator's own faults, caught and retried
                    error(turn, "user", code, detail)
                if message.ends:
                    break
                if new_goal and states is not None:
                    states.end(world)
                if new_goal and gold is not None:  # the world as the gold leaves it for this goal
                    await gold.before_turn(goal, world)
                if states is not None and not states.in_goal:
                    states.begin(goal, world)
                rec.add(
                    Event(
                        kind="user_message",
                        turn=turn,
                        goal=goal,
                        t=rec.clock(),
                        content=message.text,
                        user_act=message.act,
                    )
                )
                runtime.start_turn(turn, goal)
                history = isolated_history(rec.events, goal) if gold is not None else list(rec.events)
                reply = ""
                try:
                    reply = await agent.respond(history, runtime.current_tools(), instructions, runtime)
                except StepLimitReached as exc:
                    error(turn, "agent", "agent:step_limit", str(exc))
                except ContextLengthExceeded as exc:
                    error(turn, "agent", "agent:context_length", str(exc))
                except ProviderError as exc:
                    error(turn, "provider", exc.code, str(exc))
                    termination = "provider_error"
                    break
                except Exception as exc:
                    if not is_model_misbehaviour(exc):
                        raise
                    error(turn, "agent", "agent:unexpected_behavior", _describe(exc))
                rec.add(
                    Event(
                        kind="agent_message",
                        turn=turn,
                        goal=goal,
                        t=rec.clock(),
                        content=reply,
                        usage=llm.turn_usage.model_copy(),
                    )
                )
                result.turns_played = turn + 1
                result.goals_played = max(result.goals_played or 0, goal + 1)
                try:
                    message = await user.reply(UserView(turn=turn, agent_message=reply))
                except ProviderError as exc:
                    error(turn, "provider", exc.code, str(exc))
                    termination = "provider_error"
                    break
                except Exception as exc:
                    error(turn, "user", "user:reply_failed", _describe(exc))
                    termination = "user_error"
                    break
                turn += 1
    except TimeoutError as exc:
        if deadline.expired():
            error(turn, "harness", "harness:timeout", f"episode exceeded {limits.timeout_s}s of working time")
            termination = "timeout"
        else:  # a TimeoutError from a world, user or agent, not our budget
            error(turn, "harness", "harness:exception", _describe(exc))
            termination = "harness_error"
    except asyncio.CancelledError:
        raise
    except GoldReplayError as exc:
        error(turn, "harness", "harness:gold_replay_failed", str(exc))
        termination = "harness_error"
    except Exception as exc:
        error(turn, "harness", "harness:exception", traceback.format_exc(limit=8)[-2000:] or _describe(exc))
        termination = "harness_error"
    if result.goals_played is None:
        result.goals_played = 0
    result.events = rec.events
    result.goal_tools = runtime.goal_tools
    result.termination = termination
    result.duration_s = rec.clock()
    try:
        result.final_state_hash = world.state_hash()
    except Exception as exc:
        error(turn, "harness", "harness:state_hash_failed", _describe(exc))
        result.termination = "harness_error"
    if states is not None:
        try:
            states.end(world)
            result.goal_states = await states.states()
        except Exception as exc:  # the state judge then has nothing to judge; the other judges still score
            error(turn, "judge", "judge:state_replay_failed", _describe(exc))
    # Read after the gold's state replay: a world a model writes for asks it there too, and that is the episode's.
    result.usage = llm.usage
    result.usage_by_role = llm.usage_by_role()
    return result


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:1000]
