"""The outside-agent protocol ``squall-agent/1``: one request per conversation turn, one reply.

The same models serve the three kinds: ``http:`` POSTs the request as JSON and reads the reply's JSON body,
``python:`` hands the callable an ``AgentRequest`` and takes an ``AgentReply`` (or plain text), ``command:`` writes
the request as JSON on the program's stdin and reads its stdout (JSON, or plain text). ``openapi_document`` is the
``http:`` side as OpenAPI, generated from these models (shipped as ``openapi.json``, kept current by a test).

The request carries what the user saw (user and assistant messages) and never what only the harness knows: no tool
events, no gold, no stressor scenarios. Tools are reached through ``mcp_url`` only.

The handshake: before a run (its preflight, which ``--no-preflight`` skips) squall sends an ``http:`` or
``command:`` agent one ``AgentHello``, ``{"protocol": "squall-agent/1", "kind": "hello"}``, the way it will send
turns (a POST; the program's stdin). The agent may answer a ``HelloReply`` (``{"kind": "hello", "agent": NAME}``)
or any reply; what it must do is answer: a refused connection, an unknown host or no answer in time is an agent
squall cannot reach; an HTTP error status, a non-zero exit or an answer that is not ``squall-agent/1`` is an agent
that cannot take the protocol. Either refuses the run before it starts. Turn requests are unchanged (they carry no
``kind``), so an agent written before the handshake needs only not to fail on it. A ``python:`` callable is not
sent one: squall checks that it imports and takes one argument.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

PROTOCOL: Literal["squall-agent/1"] = "squall-agent/1"
"""The protocol's name and version; a reply naming another version is refused."""


class Message(BaseModel):
    """One message of the conversation, as the user saw it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Literal["user", "assistant"]
    content: str


class AgentRequest(BaseModel):
    """What an outside agent is sent at every conversation turn."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    protocol: Literal["squall-agent/1"] = PROTOCOL
    episode_id: str = Field(description="Unique within the run; the same for every turn of one episode.")
    task_id: str = Field(description="The task the episode plays (its id only).")
    turn: int = Field(ge=0, description="0-based conversation turn this request asks the reply of.")
    instructions: str = Field(description="The system instructions: the world's, as the stressors left them.")
    messages: list[Message] = Field(
        description="The conversation so far, oldest first, ending with the user's latest message. Only what the "
        "user saw: no tool calls or results (the agent remembers its own, if it wants them)."
    )
    mcp_url: str = Field(
        description="The episode's tools over MCP (streamable HTTP), the same URL every turn of the episode; it "
        "answers only while this request is open, and refuses calls past max_steps."
    )
    max_steps: int = Field(ge=1, description="Tool calls the agent may make in this turn.")
    timeout_s: float | None = Field(
        default=None,
        description="Seconds this reply may take: the episode's remaining working time. Past it the turn fails "
        "(the episode ends as a timeout; a command is killed).",
    )


class ReportedUsage(BaseModel):
    """The agent's own model usage in this turn, as it reports it (squall cannot see its model calls)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    requests: int = Field(default=0, ge=0, description="Model requests made.")
    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)


class AgentReply(BaseModel):
    """What an outside agent answers: its reply to the user."""

    model_config = ConfigDict(frozen=True, extra="ignore")  # a newer agent's extra keys are not an error

    protocol: Literal["squall-agent/1"] = PROTOCOL
    reply: str = Field(description="The message the user reads.")
    usage: ReportedUsage | None = Field(default=None, description="Recorded on the turn's agent_message event.")
    end: bool = Field(default=False, description="True: the agent ends the conversation after this reply.")


class AgentHello(BaseModel):
    """The handshake: sent once before a run to check that an agent answers the protocol."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    protocol: Literal["squall-agent/1"] = PROTOCOL
    kind: Literal["hello"] = Field(default="hello", description="What marks the handshake: a turn has no kind.")


class HelloReply(BaseModel):
    """An answer to the handshake (an agent may instead answer it as a turn, with any ``AgentReply``)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    protocol: Literal["squall-agent/1"] = PROTOCOL
    kind: Literal["hello"]
    agent: str | None = Field(default=None, max_length=200, description="The agent's name, shown in the preflight.")


def openapi_document() -> dict[str, Any]:
    """The ``http:`` protocol as an OpenAPI 3.1 document: one POST, request and reply from the models above."""
    from pydantic.json_schema import models_json_schema

    models = (AgentRequest, AgentReply, AgentHello, HelloReply)
    _, defs = models_json_schema([(m, "validation") for m in models], ref_template="#/components/schemas/{model}")

    def body(*names: str) -> dict[str, Any]:
        refs = [{"$ref": f"#/components/schemas/{name}"} for name in names]
        return {"application/json": {"schema": refs[0] if len(refs) == 1 else {"oneOf": refs}}}

    return {
        "openapi": "3.1.0",
        "info": {
            "title": "squall outside agent",
            "version": PROTOCOL,
            "description": "What a service behind `squall run --agent http:URL` implements: squall POSTs one "
            "AgentRequest per conversation turn to URL and reads the AgentReply. Tools are at the request's mcp_url. "
            "Before a run squall POSTs one AgentHello (the handshake), answered with a HelloReply or any AgentReply.",
        },
        "paths": {
            "/": {
                "post": {
                    "operationId": "respond",
                    "summary": "The agent's reply to the conversation so far",
                    "requestBody": {"required": True, "content": body("AgentRequest", "AgentHello")},
                    "responses": {
                        "200": {"description": "The reply", "content": body("AgentReply", "HelloReply")},
                        "default": {"description": "Any other status is the agent's failure on that turn"},
                    },
                }
            }
        },
        "components": {"schemas": defs["$defs"]},
    }


if __name__ == "__main__":  # python -m sim.agents.outside.protocol > sim/agents/outside/openapi.json
    import json

    print(json.dumps(openapi_document(), indent=2))
