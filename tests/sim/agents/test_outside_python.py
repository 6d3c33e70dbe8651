"""``--agent python:module:function``: an async callable handed the ``AgentRequest``; the pydantic-ai agent of
docs/evaluate-your-agent.md with an ``MCPToolset`` on the episode's URL, driven by a ``FunctionModel`` that calls a
tool (no hosted model)."""

from __future__ import annotations

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from sim.agents.factory import AgentSpec, parse_agent_spec
from tests.support import outside_example
from tests.support.outside_agents import agent_faults, play_outside

listed: list[list[str]] = []


def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Call list_rooms once per turn, then say what came back."""
    listed.append(sorted(t.name for t in info.function_tools))
    returns = [p for p in messages[-1].parts if isinstance(p, ToolReturnPart)]
    if not returns:
        return ModelResponse(parts=[ToolCallPart("list_rooms", {})])
    rooms = returns[0].content
    assert isinstance(rooms, dict), rooms  # pydantic-ai hands its model the structured content
    return ModelResponse(parts=[TextPart(f"There are {len(rooms['rooms'])} rooms.")])


async def test_the_readme_agent_calls_the_episodes_tools_through_an_mcp_toolset() -> None:
    listed.clear()
    with outside_example.agent.override(model=FunctionModel(script)):
        result = await play_outside("python:tests.support.outside_example:respond")
    assert result.termination == "completed" and agent_faults(result) == []
    turns = result.turns_played
    calls = [ev.call.name for ev in result.events if ev.kind == "tool_call" and ev.call is not None]
    assert turns > 1 and calls == ["list_rooms"] * turns
    assert listed and "list_rooms" in listed[0] and "set_power" in listed[0]
    replies = [ev for ev in result.events if ev.kind == "agent_message"]
    assert {ev.content for ev in replies} == {"There are 5 rooms."}
    assert all(ev.usage is not None and ev.usage.requests == 2 and ev.usage.input_tokens > 0 for ev in replies)


async def test_a_callable_may_be_an_object_and_may_answer_a_dict_that_ends_the_conversation() -> None:
    result = await play_outside("python:tests.support.outside_callables:service")
    assert result.turns_played == 1 and agent_faults(result) == []
    assert [ev.content for ev in result.events if ev.kind == "agent_message"] == ["from an object"]


@pytest.mark.parametrize(
    ("function", "code"), [("raises", "agent:outside_failed"), ("wrong_type", "agent:outside_bad_reply")]
)
async def test_a_callable_that_raises_or_answers_the_wrong_thing_is_the_agents_fault(function: str, code: str) -> None:
    result = await play_outside(f"python:tests.support.outside_callables:{function}")
    assert set(agent_faults(result)) == {code} and result.termination == "completed"


async def test_calls_past_the_step_limit_are_refused_over_mcp_and_recorded_once_a_turn() -> None:
    result = await play_outside("python:tests.support.outside_callables:greedy")
    turns = result.turns_played
    assert agent_faults(result) == ["agent:step_limit"] * turns
    assert {ev.content for ev in result.events if ev.kind == "agent_message"} == {"3 calls refused"}
    assert len([ev for ev in result.events if ev.kind == "tool_call"]) == 15 * turns


def test_python_specs_name_an_importable_async_callable() -> None:
    assert parse_agent_spec("python:tests.support.outside_callables:raises") == AgentSpec(
        "python", "tests.support.outside_callables:raises"
    )
    for spec, says in [
        ("python:", "missing module:function"),
        ("python:tests.support.outside_callables", "expected python:module:function"),
        ("python:tests.support.no_such_module:respond", "does not import"),
        ("python:tests.support.outside_callables:absent", "has no 'absent'"),
        ("python:tests.support.outside_callables:not_async", "not an async callable"),
        ("python:tests.support.outside_callables:no_argument", r"no_argument\(\) cannot take the one argument"),
        ("python:tests.support.outside_callables:two_arguments", "cannot take the one argument squall passes"),
    ]:
        with pytest.raises(ValueError, match=says):
            parse_agent_spec(spec)


async def test_a_callable_that_never_returns_is_cancelled_at_the_episodes_deadline() -> None:
    result = await play_outside("python:tests.support.outside_callables:hangs", timeout_s=1.0)
    assert result.termination == "timeout"
    assert [(ev.fault, ev.code) for ev in result.events if ev.kind == "error"] == [("agent", "agent:outside_timeout")]
