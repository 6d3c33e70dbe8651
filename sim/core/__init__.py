"""The contract: value types and protocols shared by the engine, worlds, users and judges.

``worlds``, ``personas`` and ``judges`` import this package and nothing else of ``sim``.
"""

from sim.core.model_io import MODEL_ROLES, ChatMessage, MessageRole, ModelRequest, ModelResponse, ModelRole
from sim.core.protocols import (
    Agent,
    AgentRuntime,
    CallContext,
    CallNext,
    Judge,
    LLMHandle,
    Stressor,
    User,
    UserContext,
    UserMessage,
    UserView,
    World,
    WorldPack,
)
from sim.core.task import CallRole, GoldCall, Task, Turn, TurnOutcome, UserIntent
from sim.core.tools import ToolCall, ToolResult, ToolSpec, ToolStatus, failure
from sim.core.trace import (
    FAILED_TERMINATIONS,
    EpisodeResult,
    Event,
    EventKind,
    FaultKind,
    Score,
    TerminationReason,
    Usage,
    UserAct,
    UserActKind,
)

__all__ = [
    "FAILED_TERMINATIONS",
    "MODEL_ROLES",
    "Agent",
    "AgentRuntime",
    "CallContext",
    "CallNext",
    "CallRole",
    "ChatMessage",
    "EpisodeResult",
    "Event",
    "EventKind",
    "FaultKind",
    "GoldCall",
    "Judge",
    "LLMHandle",
    "MessageRole",
    "ModelRequest",
    "ModelResponse",
    "ModelRole",
    "Score",
    "Stressor",
    "Task",
    "TerminationReason",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "ToolStatus",
    "Turn",
    "TurnOutcome",
    "Usage",
    "User",
    "UserAct",
    "UserActKind",
    "UserContext",
    "UserIntent",
    "UserMessage",
    "UserView",
    "World",
    "WorldPack",
    "failure",
]
