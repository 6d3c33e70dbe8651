"""The inspect-evals wheel's own τ² scorers (``common/scorer.py``: ``db_match``, ``score_communicated_info``,
``complete_if_all_complete``, ``evaluate_required_actions``; ``telecom/scorer.py``: ``telecom_scorer``), loaded for
the agreement tests only, without inspect-ai.

As ``wheel_tools`` does for the tool classes: the wheel's modules run as written and only the inspect-ai names they
import are stand-ins — ``Score``, the message types and a tool call as small pydantic models, the ``@scorer``
decorator returning the function it decorates, ``multi_scorer`` running its scorers and reducing their scores as
inspect-ai's does, ``store_as`` reading a plain dict (inspect-ai's per-sample store: the object kept under an
instance name, made on first use), the agent and model names (which the scorers never call) as placeholders.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from tests.worlds.tau2.wheel_tools import stand_ins

CORRECT, INCORRECT = "C", "I"


class ChatToolCall(BaseModel):
    """The two fields of inspect-ai's ``ToolCall`` the scorers read."""

    function: str
    arguments: dict[str, Any]


class ChatMessage(BaseModel):
    role: str = "user"
    content: Any = ""
    tool_calls: list[ChatToolCall] | None = None

    @property
    def text(self) -> str:
        return str(self.content)


class ChatMessageUser(ChatMessage):
    """In the wheel's scorer state the agent's replies are user messages: the user simulator's side of the talk."""


class ChatMessageAssistant(ChatMessage):
    role: str = "assistant"


class Score(BaseModel):
    value: Any
    explanation: str | None = None


@dataclass
class TaskState:
    """The two fields of inspect-ai's ``TaskState`` the scorers read."""

    metadata: dict[str, Any]
    messages: list[ChatMessage]


def _placeholder(*args: Any, **kwargs: Any) -> Any:
    """A decorator factory (``@scorer(...)``, ``@agent``) that leaves what it decorates as it is."""
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda f: f


ScoreFn = Callable[[TaskState, Any], Awaitable[Score]]


def multi_scorer(scorers: list[ScoreFn], reducer: Callable[[list[Score]], Score]) -> ScoreFn:
    """inspect-ai's ``multi_scorer`` with a reducer function: every scorer on the same state, then the reducer."""

    async def score(state: TaskState, target: Any) -> Score:
        return reducer([await scorer(state, target) for scorer in scorers])

    return score


def _scorer_stand_ins(store: MutableMapping[str, Any]) -> dict[str, types.ModuleType]:
    modules = stand_ins(extra_packages=("common", "data_model"))
    modules["inspect_ai.util"].store_as = lambda cls, instance="": store.setdefault(instance, cls())  # type: ignore[attr-defined]
    model = modules["inspect_ai.model"]
    for name in ("ChatMessage", "ChatMessageUser", "ChatMessageAssistant"):
        setattr(model, name, globals()[name])
    for name in ("ChatMessageSystem", "ContentReasoning", "ContentToolUse", "GenerateConfig", "Model", "ModelOutput"):
        setattr(model, name, type(name, (), {}))
    model.get_model = _placeholder  # type: ignore[attr-defined]
    scorer = types.ModuleType("inspect_ai.scorer")
    scorer.CORRECT, scorer.INCORRECT, scorer.Score = CORRECT, INCORRECT, Score  # type: ignore[attr-defined]
    for name in ("Scorer", "Target"):
        setattr(scorer, name, object)
    for name in ("scorer", "accuracy", "stderr"):
        setattr(scorer, name, _placeholder)
    scorer.multi_scorer = multi_scorer  # type: ignore[attr-defined]
    solver = types.ModuleType("inspect_ai.solver")
    solver.TaskState = TaskState  # type: ignore[attr-defined]
    agent = types.ModuleType("inspect_ai.agent")
    agent.Agent = agent.AgentState = object  # type: ignore[attr-defined]
    agent.agent = _placeholder  # type: ignore[attr-defined]
    modules["inspect_ai.tool"].Tool = object  # type: ignore[attr-defined]
    modules["inspect_ai.tool"].tool = _placeholder  # type: ignore[attr-defined]
    return modules | {"inspect_ai.scorer": scorer, "inspect_ai.solver": solver, "inspect_ai.agent": agent}


@contextmanager
def wheel_scorer(
    module: str = "common.scorer", store: MutableMapping[str, Any] | None = None
) -> Iterator[types.ModuleType]:
    """The wheel's ``inspect_evals.tau2.<module>`` module, while the block runs; ``store``: what the wheel's
    ``store_as`` reads and fills (the sample's store)."""
    saved = dict(sys.modules)
    sys.modules.update(_scorer_stand_ins({} if store is None else store))
    try:
        yield importlib.import_module(f"inspect_evals.tau2.{module}")
    finally:
        for name in set(sys.modules) - set(saved):
            del sys.modules[name]
        sys.modules.update(saved)
