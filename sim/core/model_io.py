"""Model requests and responses as values the gateway can read: every model call of a run is one.

The agent under test, the user simulator, the judges and data generators all send a ``ModelRequest``
through the run's gateway, which can count the tokens it is about to spend, key a cache on it, pace it
within an endpoint's limits and charge its usage to the right role. Nothing calls a model around it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from pydantic import Field

from sim.core.tools import Frozen, ToolCall, ToolSpec

TRUNCATION_REASONS = frozenset({"length", "max_tokens", "max_output_tokens", "model_length"})
"""Finish reasons (lower-cased) that say the reply was cut at an output limit, not ended by the model: ``length``
(OpenAI and every OpenAI-compatible server), ``max_tokens`` (Anthropic, Bedrock), ``MAX_TOKENS`` (Gemini, Cohere),
``max_output_tokens`` (OpenAI's Responses API), ``model_length`` (Mistral: the model's context filled up)."""

OUTPUT_TRUNCATED = "agent:output_truncated"
"""The fault code of an agent reply cut at an output limit: apart from a malformed call (a cut reply's broken arguments
are the limit's doing, not the model's)."""

REASONING_KEPT = 16_000
"""Characters of a reply's reasoning text kept in the trace (the head, then a note of how much was cut): enough to see
why a model called what it called, without a reasoning model's 100 KB per request swelling every trace."""


def truncated_reason(finish_reason: str | None) -> bool:
    """Whether a reply that finished for ``finish_reason`` was cut at an output limit."""
    return finish_reason is not None and finish_reason.lower() in TRUNCATION_REASONS


def kept_reasoning(text: str) -> str:
    """``text`` as the trace keeps it: whole up to ``REASONING_KEPT`` characters, else its head and the count cut."""
    if len(text) <= REASONING_KEPT:
        return text
    return f"{text[:REASONING_KEPT]}\n[... {len(text) - REASONING_KEPT:,} more characters of reasoning not kept]"


ModelRole = Literal["agent", "user", "judge", "generator", "world"]
"""Who is asking. Only ``agent`` requests count against the agent's per-turn step budget."""
MODEL_ROLES: tuple[ModelRole, ...] = ("agent", "user", "judge", "generator", "world")

MessageRole = Literal["system", "user", "assistant", "tool"]


class ChatMessage(Frozen):
    """One message of a chat request, in the shape every chat API shares."""

    role: MessageRole
    content: str = Field(default="", description="Text; empty for an assistant message that only calls tools.")
    tool_calls: tuple[ToolCall, ...] = Field(default=(), description="assistant: the calls it made.")
    tool_call_id: str | None = Field(default=None, description="tool: the id of the call this answers.")
    name: str | None = Field(default=None, description="tool: the function that was called.")


class ModelRequest(Frozen):
    """One model call, fully described: who asks, which model, what it is shown and how it samples."""

    role: ModelRole = Field(description="Who is asking: the agent under test, the user simulator, a judge...")
    model: str = Field(
        description="Model spec: 'openai-chat:NAME@BASE_URL' for any OpenAI-compatible endpoint, "
        "'openai-chat:NAME' for OpenAI itself, or another pydantic-ai model string."
    )
    messages: tuple[ChatMessage, ...] = Field(description="The conversation, system message first if any.")
    tools: tuple[ToolSpec, ...] = Field(default=(), description="Functions the model may call (native tools).")
    tool_choice: Literal["auto", "none", "required"] | None = Field(default=None, description="None: provider's.")
    max_tokens: int | None = Field(default=None, ge=1, description="Output limit (also reserved in token budgets).")
    temperature: float | None = Field(default=None, ge=0, description="None: the provider's default.")
    seed: int | None = Field(default=None, description="Sampling seed, where the provider honours one.")
    stop: tuple[str, ...] = Field(default=(), description="Stop sequences.")

    def cache_key(self) -> str:
        """Hash of everything that determines the answer (the role does not: a judge and a user asking the
        same thing of the same model get the same answer)."""
        payload = self.model_dump(mode="json", exclude={"role"})
        for tool in payload["tools"]:
            tool.pop("read_only", None)  # never shown to the model
        text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()


class ModelResponse(Frozen):
    """What the model answered, with the usage the provider reported."""

    text: str = Field(default="", description="Assistant text (may be empty when it only calls tools).")
    tool_calls: tuple[ToolCall, ...] = Field(default=(), description="Native tool calls, in order.")
    finish_reason: str | None = Field(default=None, description="As the provider reported it ('stop', 'length'...).")
    input_tokens: int = Field(default=0, ge=0, description="Prompt tokens, as reported.")
    output_tokens: int = Field(default=0, ge=0, description="Completion tokens, as reported.")
    cost: float = Field(default=0.0, ge=0, description="USD where the provider's price is known; else 0.")
    model: str | None = Field(default=None, description="Model name the provider reported.")
    cached: bool = Field(default=False, description="Served from the response cache, no endpoint request made.")
    invalid_arguments: dict[str, str] = Field(
        default_factory=dict,
        description="Call id -> the raw arguments text, for tool calls whose arguments were not a JSON object "
        "(those calls carry empty arguments in tool_calls). The agent's fault, fed back to it.",
    )
    cached_input_tokens: int = Field(
        default=0, ge=0, description="Of input_tokens, those the provider read from its prompt cache (as reported)."
    )
    reasoning_tokens: int = Field(
        default=0, ge=0, description="Of output_tokens, those the model spent reasoning (as reported)."
    )
    reasoning: str = Field(
        default="",
        description="The model's reasoning text, where the provider returns it (``kept_reasoning``: size-bounded).",
    )
    output_limit: int | None = Field(
        default=None, description="The output cap the request was sent with; None: none (the provider's own limit)."
    )

    @property
    def truncated(self) -> bool:
        """The reply was cut at an output limit (``finish_reason`` says so), not ended by the model."""
        return truncated_reason(self.finish_reason)
