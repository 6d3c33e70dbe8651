"""An agent that plays a model's recorded outputs again (``agent = "replay:NAME"``): another harness's results (BFCL's
result files, ``squall import bfcl-results``) become a squall run, scored by squall's judges like any other.

Per task, per goal, the model responses the recording holds, in order: each response's calls go through the runtime
(stressors, world, events) as one step; a response that could not be decoded is an agent fault
(``agent:parse_error:bad_arguments``, what a model's unreadable call is); a recording that cannot be played at all
(another harness gave up on the entry) ends the conversation at once with its reason as a fault
(``agent:replay_unplayable``). Each goal is played once: a later turn on the same goal gets no calls.

A replay agent cannot be built from its spec alone: the recording comes with the command that makes the run, and
``squall run --agent replay:NAME`` (or ``--resume`` of such a run) is refused with that said.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sim.core import AgentFactory, AgentRuntime, EpisodeControls, EpisodeGold, Event, ToolCall

UNREADABLE = "agent:parse_error:bad_arguments"
UNPLAYABLE = "agent:replay_unplayable"
REPLY = "Done."


@dataclass(frozen=True)
class ReplayStep:
    """One recorded model response: its calls (name, arguments), or why it could not be decoded."""

    calls: tuple[tuple[str, Mapping[str, object]], ...] = ()
    unreadable: str | None = None


@dataclass(frozen=True)
class Recording:
    """One task's recorded outputs: per goal, its model responses; or why the recording cannot be played."""

    goals: tuple[tuple[ReplayStep, ...], ...] = ()
    unplayable: str | None = None


class ReplayAgent:
    """Plays one task's recording (an empty one: the model made no call)."""

    def __init__(self, name: str, recording: Recording, gold: EpisodeGold) -> None:
        self.name = name
        self._recording = recording
        self._gold = gold
        self._played: set[int] = set()

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        goal = self._gold.goal
        if self._recording.unplayable is not None:
            runtime.fault("agent", UNPLAYABLE, self._recording.unplayable)
            if isinstance(runtime, EpisodeControls):
                runtime.end_conversation()
            return ""
        if goal in self._played or goal >= len(self._recording.goals):
            return REPLY
        self._played.add(goal)
        for step, response in enumerate(self._recording.goals[goal], start=1):
            if response.unreadable is not None:
                runtime.fault("agent", UNREADABLE, response.unreadable, step=step)
                continue
            for name, arguments in response.calls:
                await runtime.call(ToolCall(id="", name=name, arguments=dict(arguments)), step=step)
        return REPLY


def replay_factory(name: str, recordings: Mapping[str, Recording]) -> AgentFactory:
    """Each episode's agent, playing its task's recording (a task without one: no calls)."""

    def make(gold: EpisodeGold) -> ReplayAgent:
        return ReplayAgent(name, recordings.get(gold.task.id, Recording()), gold)

    return make
