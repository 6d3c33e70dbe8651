"""The episode loop: user ⇄ agent ⇄ world, in three phases.

1. Prepare (``sim.episode.prepare``): the world, the stressed task and docs, the runtime, the agent.
2. Converse: the user opens, then one turn at a time (user message, agent reply, user answer) until the user ends,
   a limit is reached or a fault ends the episode.
3. Finish: the final state, the task states for the state judge, and the ``EpisodeResult`` built once, as a value.

Every exception the loop catches is judged by one table (``sim.episode.faults``): whose fault, which code, and
whether the episode ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from sim.core import (
    CheckingWorld,
    EpisodeResult,
    Event,
    EventKind,
    GoalState,
    StoppableUser,
    TerminationReason,
    UserContext,
    UserMessage,
    UserView,
    WorldCheck,
)
from sim.episode.deadline import WorkingTimeDeadline
from sim.episode.env import EpisodeEnv, EpisodeLimits, EpisodeSpec
from sim.episode.faults import Fault, Stage, classify
from sim.episode.gold_history import isolated_history
from sim.episode.prepare import PreparedEpisode, prepare_episode
from sim.episode.recorder import EventRecorder
from sim.episode.user_tools import user_tools_of

STOP_GRACE_S = 1.0
"""How long a stopped agent's cancelled request may take to unwind before the conversation ends without it."""


class AgentStopped(Exception):
    """The user stopped the agent mid-turn (``sim.core.StoppableUser``)."""


__all__ = ["EpisodeLimits", "EpisodeSpec", "run_episode"]  # the specs lived here; sim.run still imports them here


async def run_episode(spec: EpisodeSpec, env: EpisodeEnv) -> EpisodeResult:
    """Play one episode to the end and return its full record. Never raises except on cancellation."""
    rec = EventRecorder(env.watch)
    progress = _Progress()
    try:
        prepared = prepare_episode(spec, env, rec, lambda: progress.goal)
    except Exception as exc:
        fault = _judged("setup", exc)
        # No clock, no goal: nothing had started (the trace of a failed setup has always read so).
        event = Event(kind="error", turn=0, fault=fault.kind, code=fault.code, content=fault.detail)
        return EpisodeResult(
            **_identity(spec, env), task=spec.task, tools=[], events=[event], termination=fault.ends or "harness_error"
        )
    conversation = _Conversation(spec, env, rec, prepared, progress)
    await conversation.play()
    return await conversation.finish()


class _Progress:
    """How far the conversation got: the loop's own state, read by the result at the end (and by a calibration
    agent's gold, for the goal)."""

    def __init__(self) -> None:
        self.turn = 0
        self.goal = 0
        self.turns_played = 0
        self.goals_played = 0
        self.termination: TerminationReason = "completed"


class _Conversation:
    """One prepared episode in play."""

    def __init__(
        self, spec: EpisodeSpec, env: EpisodeEnv, rec: EventRecorder, prepared: PreparedEpisode, progress: _Progress
    ) -> None:
        self._spec, self._env, self._rec, self._ep, self._progress = spec, env, rec, prepared, progress

    # --- phase 2: the conversation ---

    async def play(self) -> None:
        deadline = WorkingTimeDeadline(self._env.limits.timeout_s, self._ep.waits.total, self._env.loop_lag)
        try:
            async with deadline:
                self._ep.runtime.deadline_left = lambda: deadline.budget_s - deadline.used()
                message = await self._open()
                while message is not None:
                    message = await self._play_turn(message)
        except Exception as exc:  # the deadline, a broken world or gold, a harness bug: never the run's end
            self._record(_judged("episode", exc))

    async def _open(self) -> UserMessage | None:
        progress = self._progress
        tools = user_tools_of(self._ep.world, self._rec.add, self._rec.clock, lambda: (progress.turn, progress.goal))
        context = UserContext(seed=self._spec.seed, llm=self._ep.llm, tools=tools)
        try:
            return await self._env.user.open(self._ep.task, context)
        except Exception as exc:
            self._record(_judged("user_open", exc))
            return None

    async def _play_turn(self, message: UserMessage) -> UserMessage | None:
        """One conversation turn: the user's message, the agent's reply, the user's answer (None: the end)."""
        progress, goals = self._progress, len(self._ep.task.goals)
        if progress.turn >= self._env.limits.max_turns:
            progress.termination = "turn_limit"
            return None
        if not 0 <= message.goal < goals:
            detail = f"goal {message.goal} of a task with {goals} goals"
            self._record(Fault("user", "user:no_such_goal", detail, "user_error"))
            return None
        new_goal, progress.goal = message.goal != progress.goal, message.goal
        for code, detail in message.slips:  # the simulator's own faults, caught and retried
            self._record(Fault("user", code, detail, None))
        if message.ends:
            return None
        await self._enter_goal(new_goal)
        reworded = self._ep.reworded.pop(progress.goal, [])  # on the goal's first message only
        self._add("user_message", content=message.text, user_act=message.act, scenarios=list(reworded))
        self._ep.runtime.start_turn(progress.turn, progress.goal)
        reply = await self._agent_reply()
        if reply is None:
            return None
        self._add("agent_message", content=reply, usage=self._ep.llm.turn_usage)  # a value of its own
        progress.turns_played = progress.turn + 1
        progress.goals_played = max(progress.goals_played, progress.goal + 1)
        if self._ep.runtime.ended:  # an outside agent said the conversation is over
            return None
        try:
            answer = await self._env.user.reply(UserView(turn=progress.turn, agent_message=reply))
        except Exception as exc:
            self._record(_judged("user_reply", exc))
            return None
        progress.turn += 1
        return answer

    async def _enter_goal(self, new_goal: bool) -> None:
        """Close the goal the user left and open the one it is on: task states, and in the isolated setup the world
        as the gold leaves it for this goal."""
        ep, world = self._ep, self._ep.world
        if new_goal and ep.states is not None:
            ep.states.end(world)
        if new_goal and ep.gold_history is not None:
            await ep.gold_history.before_turn(self._progress.goal, world)
            ep.runtime.events_settled_before(self._progress.goal)
        if ep.states is not None and not ep.states.in_goal:
            ep.states.begin(self._progress.goal, world)

    async def _agent_reply(self) -> str | None:
        """The agent's reply: '' when a fault ended its turn, None when one ended the episode."""
        events = self._rec.events
        history = isolated_history(events, self._progress.goal) if self._ep.gold_history is not None else list(events)
        try:
            return await self._stoppable(self._ep.agent.respond(history, self._ep.runtime))
        except AgentStopped:
            self._record(Fault("user", "user:stopped_agent", "the user stopped the agent mid-turn", None))
            return None  # the conversation ends here, as played so far: not a failed episode
        except Exception as exc:
            fault = classify("agent", exc)
            if fault is None:  # not the agent's doing: a harness fault, judged by the conversation's handler
                raise
            self._record(fault)
            return None if fault.ends is not None else ""

    async def _stoppable(self, reply: Coroutine[Any, Any, str]) -> str:
        """The agent's reply, unless a user who may stop it does first: then its request is cancelled (the
        cancellation reaches the HTTP request in flight) and AgentStopped raised."""
        user = self._env.user
        if not isinstance(user, StoppableUser):
            return await reply
        answer, stopped = asyncio.ensure_future(reply), asyncio.ensure_future(user.stop_agent.wait())
        try:
            await asyncio.wait((answer, stopped), return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopped.cancel()
            if not answer.done():
                answer.cancel()
                await asyncio.wait((answer,), timeout=STOP_GRACE_S)  # an agent that ignores its cancel is left
        if answer.cancelled() or not answer.done():
            raise AgentStopped
        return answer.result()

    # --- phase 3: the record ---

    async def finish(self) -> EpisodeResult:
        ep, progress = self._ep, self._progress
        duration_s = self._rec.clock()
        final_state_hash: str | None = None
        try:
            final_state_hash = ep.world.state_hash()
        except Exception as exc:
            self._record(_judged("final_state", exc))
        end_checks: list[WorldCheck] = []
        if isinstance(ep.world, CheckingWorld):
            try:
                end_checks = ep.world.end_checks()
            except Exception as exc:
                self._record(_judged("final_state", exc))
        goal_states: list[GoalState] = []
        if ep.states is not None:
            try:
                ep.states.end(ep.world)
                goal_states = await ep.states.states()
            except Exception as exc:
                self._record(_judged("gold_states", exc))
        # Read after the gold's state replay: a world a model writes for asks it there too, and that is the episode's.
        usage, by_role = ep.llm.usage, ep.llm.usage_by_role()
        return EpisodeResult(
            **_identity(self._spec, self._env),
            task=ep.task,
            tools=ep.tools,
            instructions=ep.instructions,
            events=self._rec.events,
            goal_tools=ep.runtime.goal_tools,
            termination=progress.termination,
            turns_played=progress.turns_played,
            goals_played=progress.goals_played,
            usage=usage,
            usage_by_role=by_role,
            model_calls=ep.llm.calls,
            duration_s=duration_s,
            final_state_hash=final_state_hash,
            goal_states=goal_states,
            end_checks=end_checks,
        )

    # --- the record of events ---

    def _record(self, fault: Fault) -> None:
        """Record a fault at the turn and goal the conversation is on; a fault that ends the episode says how."""
        self._add("error", fault=fault.kind, code=fault.code, content=fault.detail)
        if fault.ends is not None:
            self._progress.termination = fault.ends

    def _add(self, kind: EventKind, **fields: Any) -> None:
        progress = self._progress
        self._rec.add(Event(kind=kind, turn=progress.turn, goal=progress.goal, t=self._rec.clock(), **fields))


def _judged(stage: Stage, exc: Exception) -> Fault:
    """The fault of a stage whose table rows take any exception."""
    fault = classify(stage, exc)
    if fault is None:
        raise RuntimeError(f"sim.episode.faults: no row takes {type(exc).__name__} at stage {stage!r}") from exc
    return fault


def _identity(spec: EpisodeSpec, env: EpisodeEnv) -> dict[str, Any]:
    """The fields that name the episode, the same whether or not it could be played."""
    return {
        "episode_id": spec.episode_id,
        "task_id": spec.task.id,
        "trial": spec.trial,
        "variant": spec.variant,
        "seed": spec.seed,
        "world": env.pack.name,
        "agent": env.labels[0],
        "user": env.labels[1],
        "stressors": [s.name for s in env.stressors],
    }
