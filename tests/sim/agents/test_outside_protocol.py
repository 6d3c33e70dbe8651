"""The ``squall-agent/1`` protocol: its OpenAPI document is valid and current, a request carries only what the user
saw, and malformed ``--agent`` strings of the outside kinds fail before the run with a clear message."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from schemathesis.specs.openapi.definitions import OPENAPI_31_VALIDATOR

from sim.agents.factory import AgentSpec, parse_agent_spec
from sim.agents.outside.agent import conversation, reply_timeout
from sim.agents.outside.errors import OutsideBadReply, OutsideTimeout, OutsideUnreachable
from sim.agents.outside.protocol import AgentReply, AgentRequest, openapi_document
from sim.agents.outside.transports import reply_from_bytes
from sim.core import Event, ToolCall, ToolResult
from sim.episode.faults import classify

SHIPPED = Path(__file__).parents[3] / "sim" / "agents" / "outside" / "openapi.json"


def test_the_shipped_openapi_document_is_current_and_valid() -> None:
    document = openapi_document()
    assert json.loads(SHIPPED.read_text()) == document, "regenerate: python -m sim.agents.outside.protocol > " + str(
        SHIPPED.relative_to(SHIPPED.parents[3])
    )
    OPENAPI_31_VALIDATOR.validate(document)

    def validator(model: str) -> jsonschema.Draft202012Validator:
        schema: dict[str, Any] = {"$ref": f"#/components/schemas/{model}", "components": document["components"]}
        return jsonschema.Draft202012Validator(schema)

    request = AgentRequest(
        episode_id="t#0", task_id="t", turn=0, instructions="Help.", messages=[], mcp_url="http://x/mcp/a", max_steps=3
    )
    assert validator("AgentRequest").is_valid(request.model_dump(mode="json"))
    assert not validator("AgentRequest").is_valid({**request.model_dump(mode="json"), "gold": []})
    assert validator("AgentReply").is_valid({"reply": "Done.", "usage": {"requests": 1}, "end": False})
    assert not validator("AgentReply").is_valid({"answer": "Done."})


def test_a_request_holds_the_conversation_as_the_user_saw_it() -> None:
    call = ToolCall(id="call_0_0", name="set_power", arguments={"device_id": "l1"})
    history = [
        Event(kind="user_message", turn=0, content="Light on"),
        Event(kind="tool_call", turn=0, call=call),
        Event(kind="tool_result", turn=0, call=call, result=ToolResult(call_id="call_0_0", status="success")),
        Event(kind="error", turn=0, fault="agent", code="agent:unknown_tool", content="x"),
        Event(kind="agent_message", turn=0, content="Done."),
        Event(kind="user_message", turn=1, content="Thanks"),
    ]
    assert [(m.role, m.content) for m in conversation(history)] == [
        ("user", "Light on"),
        ("assistant", "Done."),
        ("user", "Thanks"),
    ]
    fields = set(AgentRequest.model_fields)
    assert fields == {"protocol", "episode_id", "task_id", "turn", "instructions", "messages", "mcp_url"} | {
        "max_steps",
        "timeout_s",
    }


def test_replies_are_json_or_a_commands_plain_text_and_nothing_else() -> None:
    assert reply_from_bytes(b'{"reply": "hi"}', "x", text_allowed=False) == AgentReply(reply="hi")
    assert reply_from_bytes(b"  hi there\n", "x", text_allowed=True).reply == "hi there"
    for raw, text_allowed in [
        (b"hi there", False),
        (b"", True),
        (b'{"reply": ', True),
        (b'["reply"]', True),
        (b'{"reply": "x", "protocol": "squall-agent/2"}', False),
        (b"\xff\xfe", True),
    ]:
        with pytest.raises(OutsideBadReply):
            reply_from_bytes(raw, "x", text_allowed)


def test_outside_faults_are_the_agents_and_only_a_timeout_ends_the_episode_but_nobody_answering_voids_it() -> None:
    timeout = classify("agent", OutsideTimeout("slow"))
    assert timeout is not None and (timeout.kind, timeout.code, timeout.ends) == (
        "agent",
        "agent:outside_timeout",
        "timeout",
    )
    unreachable = classify("agent", OutsideUnreachable("x"))
    assert unreachable is not None and (unreachable.kind, unreachable.code, unreachable.ends) == (
        "provider",
        "provider:outside_unreachable",
        "provider_error",
    )
    for exc, code in [(OutsideBadReply("x"), "agent:outside_bad_reply")]:
        fault = classify("agent", exc)
        assert fault is not None and (fault.kind, fault.code, fault.ends) == ("agent", code, None)
    assert reply_timeout(None) is None and reply_timeout(0.0) == 0.0
    assert reply_timeout(2.0) == pytest.approx(1.8) and reply_timeout(100.0) == pytest.approx(99.5)


def test_http_and_command_specs() -> None:
    assert parse_agent_spec("http:http://127.0.0.1:8000/agent") == AgentSpec("http", "http://127.0.0.1:8000/agent")
    assert parse_agent_spec("https://agents.example/respond").label == "http:https://agents.example/respond"
    assert parse_agent_spec('command:python -c "print(1)"') == AgentSpec("command", 'python -c "print(1)"')
    for spec, says in [
        ("http:", "missing a URL"),
        ("http:ftp://host/x", "not an http"),
        ("http:localhost:8000", "not an http"),
        ("command:", "missing a program"),
        ("command:no-such-program-squall --x", "not found"),
        ("command:python 'unclosed", "No closing quotation"),
    ]:
        with pytest.raises(ValueError, match=says):
            parse_agent_spec(spec)
