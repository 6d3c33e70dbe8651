"""The native agent's history keeps what the model did: a call to a tool that does not exist, and the error it
read, are in every later turn's request (BFCL's history keeps them too), while the call record leaves them out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sim.agents.history import to_chat_messages
from sim.config.run_config import RunConfig
from sim.core import Event, ModelRequest, ModelResponse, ToolCall, ToolResult
from sim.llm.gateway import EpisodeLLM
from sim.run.runner import execute
from tests.sim.agents.test_agents_http import TASK_ID, native_script, task
from tests.support.mockllm_server import mock_llm_server

INVENTED = "cat<|channel|>"


async def test_an_invented_call_and_its_error_reach_the_next_turns_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    requests: list[tuple[int, ModelRequest]] = []
    complete = EpisodeLLM.complete

    async def recorded(self: EpisodeLLM, request: ModelRequest) -> ModelResponse:
        requests.append((self.turn, request))
        return await complete(self, request)

    monkeypatch.setattr(EpisodeLLM, "complete", recorded)
    # The mock answers the script step at the request's count of assistant messages: a history that dropped the
    # invented call would replay the wrong steps from turn 2 on.
    steps = [{"tool_calls": [{"name": INVENTED, "arguments": {"path": "/etc/passwd"}}]}, *native_script(task())]
    with mock_llm_server({"policy": {"kind": "script", "steps": steps}}) as srv:
        cfg = RunConfig(agent=f"openai-chat:mock-model@{srv.url}", tasks=[TASK_ID], out=tmp_path, run_id="r")
        store, summary = await execute(cfg)
    [episode] = store.episodes()
    assert episode.termination == "completed" and summary["core_api_accuracy"] == 1.0
    [fault] = [e for e in episode.events if e.code == "agent:unknown_tool"]
    assert fault.call is not None and fault.call.name == INVENTED and fault.result is not None
    assert INVENTED not in [e.call.name for e in episode.events if e.kind == "tool_call" and e.call]

    turn_two = next(request for turn, request in requests if turn == 1)
    shown = [m for m in turn_two.messages if m.role in ("assistant", "tool")]
    invented = next(m for m in shown if any(c.name == INVENTED for c in m.tool_calls))
    [call] = invented.tool_calls
    assert call.arguments == {"path": "/etc/passwd"} and call.id == fault.call.id
    answer = shown[shown.index(invented) + 1]
    assert answer.role == "tool" and answer.tool_call_id == call.id and "Unknown function" in (answer.content or "")


def _call(index: int, name: str) -> ToolCall:
    return ToolCall(id=f"call_0_{index}", name=name, arguments={})


def _refusal(call: ToolCall) -> ToolResult:
    return ToolResult(call_id=call.id, status="not_found", content={"error": "Unknown function"})


def _ev(**fields: Any) -> Event:
    return Event(turn=0, **fields)


def _invented(call: ToolCall) -> Event:
    return _ev(kind="error", step=1, fault="agent", code="agent:unknown_tool", call=call, result=_refusal(call))


def test_a_step_with_invented_calls_shows_them_in_the_order_the_model_made_them() -> None:
    """Parallel calls of one step: the invented one is recorded after it ran, the known one before."""
    made, known = _call(0, INVENTED), _call(1, "list_rooms")
    mixed: list[Any] = [
        _ev(kind="user_message", content="rooms?"),
        _ev(kind="tool_call", step=1, call=known),
        _invented(made),
        _ev(
            kind="tool_result",
            step=1,
            call=known,
            result=ToolResult(call_id=known.id, status="success", content=["hall"]),
        ),
        _ev(kind="agent_message", content="The hall."),
    ]
    roles = [(m.role, [c.name for c in m.tool_calls], m.tool_call_id) for m in to_chat_messages(mixed)]
    assert roles == [
        ("user", [], None),
        ("assistant", [INVENTED, "list_rooms"], None),
        ("tool", [], made.id),
        ("tool", [], known.id),
        ("assistant", [], None),
    ]
    only = [_ev(kind="user_message", content="rooms?"), _invented(made), _invented(_call(1, "ls"))]
    roles = [(m.role, [c.name for c in m.tool_calls], m.tool_call_id) for m in to_chat_messages(only)]
    assert roles[1:] == [("assistant", [INVENTED, "ls"], None), ("tool", [], made.id), ("tool", [], "call_0_1")]
    plain = _ev(kind="error", fault="provider", code="provider:rate_limited", content="429")
    assert to_chat_messages([plain]) == []  # other errors stay out of the model's sight
