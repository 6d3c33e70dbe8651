"""The one table from an exception the episode loop catches to whose fault it was, its code, and how the episode
ends.

The loop catches at a few places (setup, the user opening and replying, the agent's turn, the whole conversation
against the deadline, the final record); each asks ``classify`` with the stage it was in. The first row whose stage
and exception type match decides; an exception no row of its stage takes is not the loop's to judge there and goes
up to the conversation's own handler (the ``episode`` stage), whose last row takes anything.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from sim.agents.outside.errors import OutsideAgentError, OutsideTimeout, OutsideUnreachable
from sim.core import FaultKind, TerminationReason
from sim.episode.deadline import WorkingTimeExceeded
from sim.episode.gold_history import GoldReplayError
from sim.llm.errors import ContextLengthExceeded, ProviderError, StepLimitReached, is_model_misbehaviour

Stage = Literal["setup", "user_open", "agent", "user_reply", "episode", "final_state", "gold_states"]
"""Where the loop was. ``episode``: anything the conversation raised that no inner stage took (the deadline's
``WorkingTimeExceeded`` included); ``final_state`` and ``gold_states``: the record taken once it is over."""


@dataclass(frozen=True)
class Fault:
    """What the loop records for a caught exception, and how the episode ends (None: it goes on, or at the end
    stages keeps the termination it had)."""

    kind: FaultKind
    code: str
    detail: str
    ends: TerminationReason | None


def _message(exc: BaseException) -> str:
    return str(exc)


def describe(exc: BaseException) -> str:
    """One line naming the exception: what a fault of someone else's code records."""
    return f"{type(exc).__name__}: {exc}"[:1000]


def _trace(exc: BaseException) -> str:
    """A harness bug: where it happened matters more than what it says."""
    return "".join(traceback.format_exception(exc, limit=8))[-2000:] or describe(exc)


def _provider_code(exc: BaseException) -> str:
    assert isinstance(exc, ProviderError)  # only its row asks
    return exc.code


def _outside_code(exc: BaseException) -> str:
    assert isinstance(exc, OutsideAgentError)  # only its row asks
    return exc.code


def _always(exc: BaseException) -> bool:
    return True


@dataclass(frozen=True)
class _Row:
    stages: frozenset[Stage]
    catches: type[BaseException]
    kind: FaultKind
    code: str | Callable[[BaseException], str]
    detail: Callable[[BaseException], str]
    ends: TerminationReason | None
    when: Callable[[BaseException], bool] = _always


def _at(*stages: Stage) -> frozenset[Stage]:
    return frozenset(stages)


_MODEL_CALLERS = _at("user_open", "agent", "user_reply")
"""The stages that wait on a model: the agent's, or an LLM user's."""


FAULTS: tuple[_Row, ...] = (
    # A broken world or stressor fails this episode, not the whole run.
    _Row(_at("setup"), Exception, "harness", "harness:setup_failed", _trace, "harness_error"),
    # The agent's own limits end its turn, not the episode: the user still answers.
    _Row(_at("agent"), StepLimitReached, "agent", "agent:step_limit", _message, None),
    _Row(_at("agent"), ContextLengthExceeded, "agent", "agent:context_length", _message, None),
    # An agent outside squall (sim.agents.outside) that did not answer in the episode's time left: the budget is spent.
    _Row(_at("agent"), OutsideTimeout, "agent", "agent:outside_timeout", _message, "timeout"),
    # One that nothing answered for (down, refused, cannot start): nobody measured it, the episode is void and
    # resumable, as for a model endpoint that fails (never the agent's 0).
    _Row(_at("agent"), OutsideUnreachable, "provider", "provider:outside_unreachable", _message, "provider_error"),
    # One that failed or answered garbage: its turn is lost, the user answers as to a silence.
    _Row(_at("agent"), OutsideAgentError, "agent", _outside_code, _message, None),
    # An endpoint that failed after retries (the agent's or the user model's): nobody's doing, the episode is void.
    _Row(_MODEL_CALLERS, ProviderError, "provider", _provider_code, _message, "provider_error"),
    # pydantic-ai's "the model broke the protocol": the agent's fault. Any other agent exception is the harness's
    # (no row here: it goes up to the episode stage).
    _Row(_at("agent"), Exception, "agent", "agent:unexpected_behavior", describe, None, is_model_misbehaviour),
    _Row(_at("user_open"), Exception, "user", "user:open_failed", describe, "user_error"),
    _Row(_at("user_reply"), Exception, "user", "user:reply_failed", describe, "user_error"),
    _Row(_at("episode"), WorkingTimeExceeded, "harness", "harness:timeout", _message, "timeout"),
    _Row(_at("episode"), TimeoutError, "harness", "harness:exception", describe, "harness_error"),  # not our budget
    _Row(_at("episode"), GoldReplayError, "harness", "harness:gold_replay_failed", _message, "harness_error"),
    _Row(_at("episode"), Exception, "harness", "harness:exception", _trace, "harness_error"),
    _Row(_at("final_state"), Exception, "harness", "harness:state_hash_failed", describe, "harness_error"),
    # The state judge then has nothing to judge; the other judges still score, and the episode ends as it did.
    _Row(_at("gold_states"), Exception, "judge", "judge:state_replay_failed", describe, None),
)


def classify(stage: Stage, exc: BaseException) -> Fault | None:
    """The fault ``exc`` is at ``stage``; None: not this stage's to judge (let it go up)."""
    for row in FAULTS:
        if stage in row.stages and isinstance(exc, row.catches) and row.when(exc):
            code = row.code if isinstance(row.code, str) else row.code(exc)
            return Fault(row.kind, code, row.detail(exc), row.ends)
    return None
