"""``--agent http:URL``: squall POSTs each turn's request to an agent service, which answers over the episode's MCP
URL with the ``mcp`` SDK's client; a service that is unreachable, fails, answers garbage or hangs is a classified
fault of that episode, never the run's."""

from __future__ import annotations

import pytest

from tests.support.outside_agents import REQUESTS, agent_faults, agent_service, lister, play_outside
from tests.support.ports import free_port

HARNESS_WORDS = ("call_", "scenario", "raw_result", "gold", "tool_result", "error_code", "state_hash")


async def test_the_reference_service_answers_every_turn_through_the_episodes_mcp_url() -> None:
    REQUESTS.clear()
    async with agent_service(lister) as base:
        result = await play_outside(f"http:{base}/agent")
    assert result.termination == "completed" and agent_faults(result) == []
    assert result.agent == f"http:{base}/agent"
    turns = result.turns_played
    assert turns > 1 and len(REQUESTS) == turns
    calls = [ev.call.name for ev in result.events if ev.kind == "tool_call" and ev.call is not None]
    assert calls == ["list_rooms"] * turns  # its MCP calls are the episode's, recorded as any agent's
    replies = [ev for ev in result.events if ev.kind == "agent_message"]
    assert {ev.content for ev in replies} == {"I can use 16 tools."}
    assert all(ev.usage is not None and (ev.usage.requests, ev.usage.input_tokens) == (2, 7) for ev in replies)

    first, last = REQUESTS[0], REQUESTS[-1]
    assert first.episode_id == result.episode_id and first.task_id == result.task_id
    assert [r.turn for r in REQUESTS] == list(range(turns))
    assert {r.mcp_url for r in REQUESTS} == {first.mcp_url} and "/mcp/" in first.mcp_url  # one URL per episode
    assert first.instructions == result.instructions and first.max_steps == 15
    assert first.timeout_s is not None and 0 < first.timeout_s < 600
    said = [ev.content for ev in result.events if ev.kind in ("user_message", "agent_message")]
    assert [m.content for m in last.messages] == said[: 2 * turns - 1]  # what the user saw, no tool events
    assert [m.role for m in last.messages[:2]] == ["user", "assistant"]
    wire = "".join(r.model_dump_json() for r in REQUESTS)
    assert not [w for w in HARNESS_WORDS if w in wire]


@pytest.mark.parametrize(
    ("path", "code", "says"),
    [
        ("/fail", "agent:outside_failed", "HTTP 500"),
        ("/text", "agent:outside_bad_reply", "not JSON"),
        ("/shape", "agent:outside_bad_reply", "reply: Field required"),
    ],
)
async def test_a_service_that_fails_or_answers_garbage_is_the_agents_fault_on_that_episode(
    path: str, code: str, says: str
) -> None:
    async with agent_service() as base:
        result = await play_outside(f"http:{base}{path}")
    faults = [ev for ev in result.events if ev.kind == "error"]
    assert faults and {(ev.fault, ev.code) for ev in faults} == {("agent", code)}
    assert says in (faults[0].content or "")
    assert result.termination == "completed" and result.turns_played > 1  # the user goes on; judges score it


async def test_an_unreachable_service_voids_the_episode_as_infrastructure_not_the_agents_zero() -> None:
    result = await play_outside(f"http://127.0.0.1:{free_port()}/agent")
    faults = [(ev.fault, ev.code) for ev in result.events if ev.kind == "error"]
    assert faults == [("provider", "provider:outside_unreachable")] and result.termination == "provider_error"


async def test_a_service_that_hangs_times_out_within_the_episode_deadline() -> None:
    async with agent_service() as base:
        result = await play_outside(f"http:{base}/hang", timeout_s=1.0)
    assert result.termination == "timeout"
    assert [(ev.fault, ev.code) for ev in result.events if ev.kind == "error"] == [("agent", "agent:outside_timeout")]
