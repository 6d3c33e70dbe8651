"""The one fault table, row by row, and the loop following it: who is at fault, which code, whether the episode ends,
and what the trace holds at each place the loop catches."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from pydantic_ai.exceptions import UnexpectedModelBehavior

from personas.scripted import ScriptedUser
from sim.core import (
    AgentRuntime,
    EpisodeResult,
    Event,
    Task,
    TerminationReason,
    User,
    UserContext,
    UserMessage,
    UserView,
    shared_agent,
)
from sim.episode.deadline import WorkingTimeExceeded
from sim.episode.env import EpisodeEnv, EpisodeSpec
from sim.episode.faults import Fault, Stage, classify
from sim.episode.gold_history import GoldReplayError
from sim.episode.loop import run_episode
from sim.llm.errors import ContextLengthExceeded, ProviderError, StepLimitReached
from sim.llm.gateway import Gateway
from worlds.registry import load_world

PACK = load_world("smart_home")
TASK: Task = PACK.tasks()[0]


@pytest.mark.parametrize(
    ("stage", "exc", "kind", "code", "ends"),
    [
        ("setup", KeyError("world"), "harness", "harness:setup_failed", "harness_error"),
        ("user_open", ProviderError("provider:http_503", "down"), "provider", "provider:http_503", "provider_error"),
        ("user_open", ValueError("bad"), "user", "user:open_failed", "user_error"),
        ("agent", StepLimitReached("15 steps"), "agent", "agent:step_limit", None),
        ("agent", ContextLengthExceeded("too long"), "agent", "agent:context_length", None),
        ("agent", ProviderError("provider:timeout", "slow"), "provider", "provider:timeout", "provider_error"),
        ("agent", UnexpectedModelBehavior("no text"), "agent", "agent:unexpected_behavior", None),
        (
            "user_reply",
            ProviderError("provider:rate_limited", "429"),
            "provider",
            "provider:rate_limited",
            "provider_error",
        ),
        ("user_reply", RuntimeError("oops"), "user", "user:reply_failed", "user_error"),
        ("episode", WorkingTimeExceeded(2.0), "harness", "harness:timeout", "timeout"),
        ("episode", TimeoutError("socket"), "harness", "harness:exception", "harness_error"),
        ("episode", GoldReplayError("turns.1 gold call 0"), "harness", "harness:gold_replay_failed", "harness_error"),
        ("episode", ZeroDivisionError("bug"), "harness", "harness:exception", "harness_error"),
        ("final_state", OSError("gone"), "harness", "harness:state_hash_failed", "harness_error"),
        ("gold_states", ValueError("replay"), "judge", "judge:state_replay_failed", None),
    ],
)
def test_each_row_names_the_fault_its_code_and_whether_the_episode_ends(
    stage: Stage, exc: Exception, kind: str, code: str, ends: TerminationReason | None
) -> None:
    fault = classify(stage, exc)
    assert fault is not None and (fault.kind, fault.code, fault.ends) == (kind, code, ends)
    assert str(exc) in fault.detail


def test_an_agent_exception_that_is_not_the_models_misbehaviour_is_left_to_the_harness_row() -> None:
    assert classify("agent", ZeroDivisionError("bug")) is None
    fault = classify("episode", ZeroDivisionError("bug"))
    assert fault is not None and fault.code == "harness:exception" and "ZeroDivisionError" in fault.detail


def test_the_deadline_budget_reads_as_its_own_message() -> None:
    assert classify("episode", WorkingTimeExceeded(1.5)) == Fault(
        "harness", "harness:timeout", "episode exceeded 1.5s of working time", "timeout"
    )


class Replies:
    """An agent whose turns raise the given exceptions in order (None: it answers)."""

    name = "replies"

    def __init__(self, *raises: BaseException | None) -> None:
        self.raises = list(raises)

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        exc = self.raises.pop(0) if self.raises else None
        if exc is not None:
            raise exc
        return "Done."


class FailingUser:
    """The scripted user, failing on open or on the n-th reply, or asking for a goal the task does not have."""

    name = "failing"

    def __init__(self, on_open: Exception | None = None, on_reply: int | None = None, goal: int = 0) -> None:
        self.inner = ScriptedUser()
        self.on_open, self.on_reply, self.goal = on_open, on_reply, goal
        self.replies = 0

    async def open(self, task: Task, context: UserContext) -> UserMessage:
        if self.on_open is not None:
            raise self.on_open
        return (await self.inner.open(task, context)).model_copy(update={"goal": self.goal})

    async def reply(self, view: UserView) -> UserMessage | None:
        self.replies += 1
        if self.replies == self.on_reply:
            raise RuntimeError("the user simulator broke")
        return await self.inner.reply(view)


async def play(agent: Replies, user: User | None = None) -> EpisodeResult:
    env = EpisodeEnv(PACK, shared_agent(agent), user or ScriptedUser(), Gateway(), ("a", "u"))
    return await run_episode(EpisodeSpec(task=TASK, trial=0, seed=1), env)


def trace(result: EpisodeResult) -> list[tuple[str, int, str | None]]:
    return [(e.kind, e.turn, e.code) for e in result.events]


async def test_an_agent_fault_that_ends_its_turn_still_records_an_empty_reply_and_the_user_goes_on() -> None:
    result = await play(Replies(StepLimitReached("more than 15 tool calls"), ContextLengthExceeded("long")))
    assert trace(result)[:6] == [
        ("user_message", 0, None),
        ("error", 0, "agent:step_limit"),
        ("agent_message", 0, None),
        ("user_message", 1, None),
        ("error", 1, "agent:context_length"),
        ("agent_message", 1, None),
    ]
    assert result.events[2].content == "" and result.termination == "completed"
    assert result.turns_played == result.goals_played == len(TASK.goals)


async def test_a_provider_fault_of_the_agent_ends_the_episode_before_its_reply() -> None:
    result = await play(Replies(None, ProviderError("provider:http_503", "service down")))
    assert trace(result)[-2:] == [("user_message", 1, None), ("error", 1, "provider:http_503")]
    assert result.termination == "provider_error" and result.turns_played == 1 and result.goals_played == 1
    assert result.events[-1].fault == "provider" and result.events[-1].goal == 1


async def test_a_harness_bug_in_the_agent_is_recorded_with_its_traceback() -> None:
    result = await play(Replies(ZeroDivisionError("division by zero")))
    last = result.events[-1]
    assert (last.code, last.fault, result.termination) == ("harness:exception", "harness", "harness_error")
    assert "Traceback" in (last.content or "") and "ZeroDivisionError" in (last.content or "")
    assert result.failed and result.turns_played == 0


async def test_user_faults_on_open_on_reply_and_an_unknown_goal() -> None:
    opened = await play(Replies(), FailingUser(on_open=ValueError("no persona")))
    assert trace(opened) == [("error", 0, "user:open_failed")] and opened.termination == "user_error"
    assert opened.goals_played == 0 and opened.final_state_hash is not None  # finished as a played episode
    replied = await play(Replies(), FailingUser(on_reply=2))
    assert trace(replied)[-1] == ("error", 1, "user:reply_failed") and replied.termination == "user_error"
    assert replied.turns_played == 2
    lost = await play(Replies(), FailingUser(goal=len(TASK.goals)))
    assert trace(lost) == [("error", 0, "user:no_such_goal")] and lost.termination == "user_error"
    assert lost.events[0].content == f"goal {len(TASK.goals)} of a task with {len(TASK.goals)} goals"


async def test_a_failed_setup_is_a_result_with_nothing_played() -> None:
    class BrokenPack:
        name = "broken"

        def tasks(self) -> list[Task]:
            return [TASK]

        def new_world(self, seed: int, context: object = None) -> object:
            raise FileNotFoundError("world data")

    env = EpisodeEnv(BrokenPack(), shared_agent(Replies()), ScriptedUser(), Gateway(), ("a", "u"))  # type: ignore[arg-type]
    result = await run_episode(EpisodeSpec(task=TASK, trial=2, seed=9), env)
    (event,) = result.events
    assert (event.code, event.goal, event.t, result.termination) == ("harness:setup_failed", None, 0.0, "harness_error")
    assert "FileNotFoundError: world data" in (event.content or "")
    assert result.goals_played is None and result.tools == [] and result.task == TASK
    assert (result.episode_id, result.world, result.agent, result.user) == (f"{TASK.id}#2", "broken", "a", "u")
