"""What happened in an episode: events, usage, termination, scores."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, model_validator

from sim.core.task import Task
from sim.core.tools import Frozen, ToolCall, ToolResult, ToolSpec
from sim.core.trusted import trusted

EventKind = Literal[
    "user_message",
    "agent_message",
    "tool_call",
    "tool_result",
    "user_tool_call",
    "user_tool_result",
    "error",
    "world_event",
]
"""``user_tool_*``: a call the user made on its own side of a world (dual control: ``sim.core.DualControlWorld``),
kinds of their own so that no judge or agent history that reads ``tool_call`` takes the user's acts for the agent's.
``world_event``: the world changed on its own (``sim.core.world_events``); never shown to the agent."""
Actor = Literal["agent", "user", "harness"]
UserActKind = Literal["request", "answer", "change_mind", "nudge"]
FaultKind = Literal["agent", "user", "judge", "provider", "harness"]
TerminationReason = Literal[
    "completed",  # the user ended the conversation (or ran out of turns)
    "turn_limit",  # the conversation hit the run's turn limit
    "timeout",  # the episode's wall-clock budget ran out
    "provider_error",  # an LLM call failed after all retries
    "user_error",  # the user simulator failed
    "harness_error",  # a bug or crash in squall or a world
    "cancelled",  # the run was interrupted
]
FAILED_TERMINATIONS: frozenset[str] = frozenset(
    {"timeout", "provider_error", "user_error", "harness_error", "cancelled"}
)
"""Terminations that make an episode unscoreable: reported, never averaged in."""
WORLD_FAULT_PREFIX = "world:"
"""Error codes of tool results the world could not produce (a simulated API whose model failed, or with no cached
answer for its own gold in a read-only run): nobody's fault under test, so such an episode is unscoreable too."""
CACHE_MISS_CODE = "cache:not_recorded"
"""Error code of a result a simulated world gave for a valid call off the task's gold path that its cache has no
answer for and that the run may not simulate: the agent reads it as a failed call, the episode is scored, and the
run counts these misses (``cache_misses`` in the summary)."""


def world_fault_code(result: ToolResult | None) -> str | None:
    """The result's ``world:`` code, if it carries one."""
    code = result.error_code if result is not None else None
    return code if code is not None and code.startswith(WORLD_FAULT_PREFIX) else None


def _zero(value: object) -> bool:
    return not value


class Usage(BaseModel):
    """LLM usage and time, summed over the calls it covers. A value: totals are sums (``a + b``), never edited.

    The token details (cached input, reasoning) and the replies cut are written only when not zero: a trace of a
    provider that reports none stays as it was before they were counted."""

    model_config = ConfigDict(frozen=True)  # extra keys stay ignored: stored runs of any age load

    requests: int = Field(default=0, description="Model responses received.")
    input_tokens: int = Field(default=0, description="Prompt tokens, as the provider reported them.")
    output_tokens: int = Field(default=0, description="Completion tokens, as the provider reported them.")
    cost: float = Field(default=0.0, description="USD, where the provider priced the call; else 0.")
    retries: int = Field(default=0, description="Requests that failed and were retried.")
    cached: int = Field(default=0, description="Responses served from the response cache (no endpoint request).")
    working_s: float = Field(default=0.0, description="Seconds spent in requests that produced a response.")
    waiting_s: float = Field(default=0.0, description="Seconds spent waiting: slots, Retry-After, backoff.")
    cached_input_tokens: int = Field(
        default=0, exclude_if=_zero, description="Of input_tokens, those read from the provider's prompt cache."
    )
    reasoning_tokens: int = Field(
        default=0, exclude_if=_zero, description="Of output_tokens, those the model spent reasoning."
    )
    truncated: int = Field(
        default=0, exclude_if=_zero, description="Responses cut at an output limit (finish_reason 'length'...)."
    )

    def __add__(self, other: Usage) -> Usage:
        # Field by field, unvalidated (sums of ints are ints, of floats floats): this runs several times per request.
        return trusted(
            Usage,
            {
                "requests": self.requests + other.requests,
                "input_tokens": self.input_tokens + other.input_tokens,
                "output_tokens": self.output_tokens + other.output_tokens,
                "cost": self.cost + other.cost,
                "retries": self.retries + other.retries,
                "cached": self.cached + other.cached,
                "working_s": self.working_s + other.working_s,
                "waiting_s": self.waiting_s + other.waiting_s,
                "cached_input_tokens": self.cached_input_tokens + other.cached_input_tokens,
                "reasoning_tokens": self.reasoning_tokens + other.reasoning_tokens,
                "truncated": self.truncated + other.truncated,
            },
        )


class UserAct(Frozen):
    """What a user message does for its goal, as the user simulator says (judges and reports read it)."""

    kind: UserActKind = Field(
        default="request",
        description="request: states the goal (first message of a goal); answer: answers the agent's question; "
        "change_mind: replaces a value stated earlier in the goal; nudge: asks the agent to go on (nothing new).",
    )
    styles: list[str] = Field(default_factory=list, description="The user styles this message was rendered in.")
    withheld: list[str] = Field(
        default_factory=list,
        description="Underspecified style: parameters the goal needs that this goal's messages have not given yet "
        "(the agent should ask rather than guess).",
    )
    gave: list[str] = Field(default_factory=list, description="Parameters this message supplies that were withheld.")
    changed: dict[str, str] = Field(
        default_factory=dict,
        description="change_mind (and the request it corrects): parameter -> the value said first, now replaced.",
    )


class Event(Frozen):
    """One thing that happened in an episode. Fields not relevant to a kind stay None."""

    kind: EventKind
    turn: int = Field(description="0-based conversation turn index: one user message and the agent's answer to it.")
    goal: int | None = Field(
        default=None,
        description="0-based index of the task goal (``task.goals``) the user was pursuing. None in traces from "
        "before goals and turns were apart: the goal is then the turn.",
    )
    step: int = Field(default=0, description="Agent step within the turn; calls from one model response share it.")
    t: float = Field(default=0.0, description="Seconds since the episode started.")
    content: str | None = Field(
        default=None, description="Message text, the error detail, or what a world event changed."
    )
    call: ToolCall | None = Field(
        default=None, description="For tool_call and tool_result; for an agent:unknown_tool error, the invented call."
    )
    result: ToolResult | None = Field(
        default=None,
        description="For tool_result: what the agent observed; for an agent:unknown_tool error, the refusal it read.",
    )
    raw_result: ToolResult | None = Field(
        default=None,
        description="For tool_result, only when a stressor changed the result: what the world returned (None when "
        "the stressor answered without calling the world, or changed nothing).",
    )
    scenarios: list[str] = Field(
        default_factory=list,
        description="For tool_result: the stressor scenarios that fired on this call, in order; for world_event: "
        "the scenario that scheduled it; for the "
        "user_message that opens a goal: the scenarios that rewrote that goal's wording.",
    )
    read_only: bool | None = Field(default=None, description="For tool_call: whether the tool is a lookup.")
    fault: FaultKind | None = Field(default=None, description="For error: whose fault it was.")
    code: str | None = Field(
        default=None, description="For error: an 'area:reason' code; for world_event: 'event:<what happened>'."
    )
    usage: Usage | None = Field(default=None, description="For agent_message: LLM usage of that turn.")
    replayed: bool = Field(
        default=False,
        description="Isolated setup: a gold call, result or reply the harness replayed into the history the agent "
        "is handed (turn and goal = the goal it replays). Never the agent's own: judges skip it.",
    )
    user_act: UserAct | None = Field(default=None, description="For user_message: what it does for its goal.")

    @property
    def actor(self) -> Actor:
        """Who acted: the user (its messages and the calls on its own tools), the agent, or the harness (an error
        is attributed by ``fault``; a replayed gold event by ``replayed``)."""
        if self.kind.startswith("user_"):
            return "user"
        return "harness" if self.kind == "error" else "agent"

    @property
    def goal_index(self) -> int:
        """The goal this event belongs to (the turn, in traces from before goals and turns were apart)."""
        return self.turn if self.goal is None else self.goal


class ModelCall(Frozen):
    """One model request of the episode, as the gateway charged it: which step of which turn asked, what it cost in
    tokens and how long it took. The request's messages are the episode's instructions, tools and the events before
    it; its response is the step's tool calls or the turn's message: kept once, in the events."""

    role: str = Field(description="agent | user | judge | ...: who asked.")
    turn: int = Field(description="The conversation turn it was asked in.")
    goal: int | None = Field(default=None, description="The goal the user was on.")
    step: int = Field(default=0, description="Agent requests: the step within the turn (tool calls of it share it).")
    t: float = Field(description="Seconds since the episode started, when the answer came (or the request gave up).")
    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = Field(default=0.0, description="Seconds in requests that produced an answer (working time).")
    waiting_s: float = Field(default=0.0, description="Seconds waiting for a slot, Retry-After or backoff.")
    retries: int = 0
    cached: bool = Field(default=False, description="Answered from the response cache (no endpoint request).")
    cached_input_tokens: int = Field(default=0, exclude_if=_zero, description="Of input_tokens, from the prompt cache.")
    reasoning_tokens: int = Field(default=0, exclude_if=_zero, description="Of output_tokens, spent reasoning.")
    truncated: bool = Field(default=False, exclude_if=_zero, description="The reply was cut at an output limit.")
    output_limit: int | None = Field(
        default=None, exclude_if=_zero, description="Cut replies: the output cap it was sent with (None: none)."
    )
    reasoning: str = Field(
        default="",
        exclude_if=_zero,
        description="The model's reasoning text, where the provider returned it (size-bounded: "
        "``sim.core.model_io.REASONING_KEPT``).",
    )


class GoalState(Frozen):
    """The world's task state around one goal (``sim.core.task_state``: flat, as changes from the world's base
    data), the agent's and the gold's: what the state judge compares."""

    goal: int
    before: dict[str, Any] = Field(description="The agent's world when the goal began (isolated: the gold's).")
    after: dict[str, Any] = Field(description="The agent's world when the goal ended.")
    gold_before: dict[str, Any] | None = Field(description="After replaying the gold of every earlier goal.")
    gold_after: dict[str, Any] | None = Field(
        description="After replaying the gold of this goal too; None when the gold could not be replayed."
    )


class WorldCheck(Frozen):
    """One of the world's own checks on its final state (τ²'s environment assertions), run when the episode ends:
    what a judge reads where the verdict needs the world's functions, which judges never import."""

    name: str = Field(description="The check, as the task names it (``assert_mobile_data_status``).")
    side: Literal["agent", "user"] = Field(description="Whose state it reads: the agent's world or the user's.")
    arguments: dict[str, Any] = Field(default_factory=dict)
    passed: bool
    detail: str = Field(default="", description="What was expected and what was found.")


class EpisodeResult(BaseModel):
    """The full record of one episode: enough to re-judge it without calling anything."""

    episode_id: str = Field(description="task_id#trial (unique within a run).")
    task_id: str
    trial: int
    seed: int = Field(description="Seed the episode's world, user and stressors were built from.")
    world: str
    agent: str = Field(description="Agent spec string.")
    user: str = Field(description="User spec string.")
    stressors: list[str] = Field(default_factory=list)
    variant: str = Field(
        default="",
        description="Stressor-mode isolated: the scenario this episode ran alone ('' = baseline or cumulative run).",
    )
    task: Task = Field(description="The task as the episode ran it (after stressor rewrites).")
    tools: list[ToolSpec] = Field(description="The tool specs the agent was shown.")
    goal_tools: dict[int, list[str]] = Field(
        default_factory=dict,
        validation_alias=AliasChoices("goal_tools", "turn_tools"),  # the key of traces before goals were named
        description="Goals whose callable tools differed from ``tools`` (a function missing until a later goal): "
        "the names the agent could call while the user pursued that goal.",
    )
    instructions: str = Field(default="", description="System instructions the agent was shown.")
    events: list[Event] = Field(default_factory=list)
    termination: TerminationReason = "completed"
    turns_played: int = Field(default=0, description="Conversation turns the agent answered.")
    goals_played: int | None = Field(
        default=None,
        description="Task goals the user reached (started) in the conversation. None in traces from before goals and "
        "turns were apart: one goal per turn.",
    )
    usage: Usage = Field(default_factory=Usage, description="All model calls of the episode, every role.")
    usage_by_role: dict[str, Usage] = Field(
        default_factory=dict, description="The same per role (agent, user, judge...), for roles that made calls."
    )
    model_calls: list[ModelCall] = Field(
        default_factory=list, description="Every model request, in the order answered (traces before it: none)."
    )
    duration_s: float = 0.0
    final_state_hash: str | None = None
    goal_states: list[GoalState] = Field(
        default_factory=list,
        description="Per played goal, the agent's and the gold's world state (worlds with a task state only).",
    )
    end_checks: list[WorldCheck] = Field(
        default_factory=list,
        exclude_if=_zero,
        description="The world's own checks of the task on its final state (``sim.core.CheckingWorld``); none: the "
        "world has none for this task.",
    )

    @property
    def goals_reached(self) -> int:
        """How many of the task's goals the conversation reached (the highest goal pursued, plus one)."""
        return self.turns_played if self.goals_played is None else self.goals_played

    def played(self, goal: int) -> bool:
        """Whether the user pursued ``goal`` (a message of its own): a goal skipped (a person's /next) or never
        reached is not played, and judges say so rather than scoring it."""
        if self.goals_played is None:  # traces from before goals: one goal per turn
            return goal < self.turns_played
        return goal < self.goals_played and any(
            ev.kind == "user_message" and ev.goal_index == goal and not ev.replayed for ev in self.events
        )

    @property
    def failed(self) -> bool:
        """True when the episode cannot be scored (a fault that is not the agent's, the world's included)."""
        return self.termination in FAILED_TERMINATIONS or self.world_fault is not None

    @property
    def unscored_reason(self) -> str | None:
        """Why the episode cannot be scored (its ``world:`` code, else ``episode:<termination>``); None: it can."""
        if not self.failed:
            return None
        return self.world_fault or f"episode:{self.termination}"

    @property
    def world_fault(self) -> str | None:
        """The first ``world:`` code among the tool results (the world could not answer a call); None: none."""
        for ev in self.events:
            if ev.kind == "tool_result":
                code = world_fault_code(ev.raw_result) or world_fault_code(ev.result)
                if code is not None:
                    return code
        return None

    def tools_at(self, goal: int) -> set[str]:
        """The names of the tools the agent could call while the user pursued ``goal``."""
        names = self.goal_tools.get(goal)
        return set(names) if names is not None else {s.name for s in self.tools}


_OLD_GOAL_CODE = re.compile(r"^turn(\d+):")
"""A goal's error code as judges wrote it before goals were named goals."""


class Score(Frozen):
    """One judge's verdict on one episode."""

    episode_id: str
    task_id: str
    trial: int
    judge: str = Field(description="Judge name, e.g. core_api_accuracy.")
    value: float | None = Field(description="In [0, 1]; None when the judge could not score (see errors).")
    per_goal: list[float | None] = Field(
        default_factory=list,
        validation_alias=AliasChoices("per_goal", "per_turn"),  # the key of scores before goals were named
        description="Per-goal values (``task.goals``), where the judge has them; None: goal not applicable.",
    )
    errors: list[str] = Field(
        default_factory=list,
        description="'area:reason' codes explaining deductions; a goal's carry its index first ('goal0:core:...').",
    )
    details: dict[str, Any] = Field(default_factory=dict)
    judge_config: str = Field(
        default="",
        description="Hash of the judge configuration that produced this score: its score set. A run's scores.jsonl "
        "holds every set ever computed; re-judging appends a set, never rewrites one.",
    )

    @model_validator(mode="before")
    @classmethod
    def _goal_codes(cls, data: Any) -> Any:
        """Scores stored before goals were named goals code a goal's errors ``turn<g>:``: read them as ``goal<g>:``,
        so an old run's verdicts compare equal to a re-judging's (the judges are the same)."""
        if isinstance(data, dict) and isinstance(errors := data.get("errors"), list):
            # Only a code opening with "turn" can be an old one: the others skip the regex (a Score per judge).
            renamed = [
                _OLD_GOAL_CODE.sub(r"goal\1:", e) if isinstance(e, str) and e[:4] == "turn" else e for e in errors
            ]
            if renamed != errors:
                data = {**data, "errors": renamed}
        return data

    @property
    def judge_fault(self) -> bool:
        """The judge crashed: no verdict. Not done: --resume and ``squall score`` run it again."""
        return self.value is None and any(e.startswith("judge:") for e in self.errors)
