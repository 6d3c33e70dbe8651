"""The contract: value types and protocols shared by the engine, worlds, users and judges.

``worlds``, ``personas`` and ``judges`` import this package and nothing else of ``sim``.
"""

from sim.core.calls import CallContext, CallNext, CallOutcome
from sim.core.gold import EpisodeGold
from sim.core.model_io import MODEL_ROLES, ChatMessage, MessageRole, ModelRequest, ModelResponse, ModelRole
from sim.core.protocols import (
    Agent,
    AgentFactory,
    AgentRuntime,
    Judge,
    LLMHandle,
    Stressor,
    User,
    UserContext,
    UserMessage,
    UserView,
    World,
    WorldPack,
    shared_agent,
)
from sim.core.stressor_chain import LastStop, through_stressors, world_stop
from sim.core.task import CallRole, Goal, GoalOutcome, GoldCall, Task, UserIntent
from sim.core.tools import ToolCall, ToolResult, ToolSpec, ToolStatus, failure
from sim.core.trace import (
    FAILED_TERMINATIONS,
    EpisodeResult,
    Event,
    EventKind,
    FaultKind,
    GoalState,
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
    "AgentFactory",
    "AgentRuntime",
    "CallContext",
    "CallNext",
    "CallOutcome",
    "CallRole",
    "ChatMessage",
    "EpisodeGold",
    "EpisodeResult",
    "Event",
    "EventKind",
    "FaultKind",
    "Goal",
    "GoalOutcome",
    "GoalState",
    "GoldCall",
    "Judge",
    "LLMHandle",
    "LastStop",
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
    "shared_agent",
    "through_stressors",
    "world_stop",
]
