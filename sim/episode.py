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
    UserView,
    WorldPack,
)
from sim.deadline import WaitClock, WorkingTimeDeadline
from sim.gold_history import GoldHistory, GoldReplayError, Setup, isolated_history
from sim.llm.errors import ContextLengthExceeded, ProviderError, StepLimitReached, is_model_misbehaviour
from sim.llm.gateway import EpisodeLLM, Gateway
from sim.runtime import EpisodeRuntime


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

    @property
    def episode_id(self) -> str:
        return f"{self.task.id}@{self.variant}#{self.trial}" if self.variant else f"{self.task.id}#{self.trial}"


class _Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []
        self._start = time.monotonic()

    def clock(self) -> float:
        return round(time.monotonic() - self._start, 4)

    def add(self, event: Event) -> None:
        self.events.append(event)


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
) -> EpisodeResult:
    """Play one episode to the end and return its full record. Never raises except on cancellation.

    ``setup``: cumulative hands the agent its own history; isolated hands it the gold one (``sim.gold_history``)."""
    rec = _Recorder()
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
    try:
        world = pack.new_world(spec.seed)
        task = spec.task
        # Innermost first: the first stressor sees the agent's call first (sim.runtime.chain), so it is the last to
        # rewrite the gold and the docs, which must be in the form that reaches it.
        for s in reversed(stressors):
            task = s.on_task(task)
        specs, instructions = world.specs(), world.instructions()
        for s in reversed(stressors):
            specs, instructions = s.on_spec(specs, instructions)
        gold = GoldHistory(pack, spec.seed, task, specs, rec.add, rec.clock) if setup == "isolated" else None
    except Exception:  # a broken world or stressor fails this episode, not the whole run
        detail = traceback.format_exc(limit=8)[-2000:]
        result.events = [Event(kind="error", turn=0, fault="harness", code="harness:setup_failed", content=detail)]
        result.termination = "harness_error"
        return result
    result.task, result.tools, result.instructions = task, specs, instructions
    llm = EpisodeLLM(gateway, limits.max_steps, rec.add, rec.clock)
    waits = WaitClock()
    llm.waiting = waits.waiting
    runtime = EpisodeRuntime(
        world, stressors, specs, task, llm, rec.add, rec.clock, limits.max_steps, spec.seed, unstressed_task=spec.task
    )

    def error(turn: int, fault: FaultKind, code: str, detail: str) -> None:
        rec.add(Event(kind="error", turn=turn, t=rec.clock(), fault=fault, code=code, content=detail))

    termination: TerminationReason = "completed"
    turn = 0
    deadline = WorkingTimeDeadline(limits.timeout_s, waits.total, loop_lag)
    try:
        async with deadline:
            message: str | None
            try:
                message = await user.open(task)
            except Exception as exc:
                error(0, "user", "user:open_failed", _describe(exc))
                message, termination = None, "user_error"
            while message is not None:
                if turn >= limits.max_turns:
                    termination = "turn_limit"
                    break
                if gold is not None:
                    await gold.before_turn(turn, world)
                rec.add(Event(kind="user_message", turn=turn, t=rec.clock(), content=message))
                runtime.start_turn(turn)
                history = isolated_history(rec.events) if gold is not None else list(rec.events)
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
                        kind="agent_message", turn=turn, t=rec.clock(), content=reply, usage=llm.turn_usage.model_copy()
                    )
                )
                result.turns_played = turn + 1
                try:
                    message = await user.reply(UserView(turn=turn, agent_message=reply))
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
    result.events = rec.events
    result.turn_tools = runtime.turn_tools
    result.termination = termination
    result.usage = llm.usage
    result.usage_by_role = llm.usage_by_role()
    result.duration_s = rec.clock()
    try:
        result.final_state_hash = world.state_hash()
    except Exception as exc:
        error(turn, "harness", "harness:state_hash_failed", _describe(exc))
        result.termination = "harness_error"
    return result


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:1000]
