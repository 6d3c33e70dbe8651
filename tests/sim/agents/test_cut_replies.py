"""A reply cut at the output limit is recorded once, as ``agent:output_truncated``, whatever agent got it: not as a
malformed call (native), a parse error (text) or a bad plan (direct). Tool-call ids are the provider's while they are
unique in the episode; one a provider repeats (a server that numbers the calls of each reply) gets an invented id, in
the trace and in the history sent back alike."""

from __future__ import annotations

from personas.scripted import ScriptedUser
from sim.agents.direct_agent import DirectAgent
from sim.agents.native import NativeToolAgent
from sim.agents.text_agent import TextProtocolAgent
from sim.core import Agent, EpisodeResult, ModelResponse, Task, ToolCall, shared_agent
from sim.core.call_ids import CALL_ID_LENGTH, invented_call_id
from sim.episode.env import EpisodeEnv, EpisodeSpec
from sim.episode.loop import run_episode
from sim.llm.gateway import Gateway
from tests.support.gateway_parts import Replaying
from worlds.registry import load_world

PACK = load_world("smart_home")
TASK: Task = next(t for t in PACK.tasks() if t.id == "sh-001")
CUT = ModelResponse(text='Action: list_rooms\nAction Input: {"ro', finish_reason="length", output_tokens=16)


async def episode(agent: Agent, transport: Replaying) -> EpisodeResult:
    gateway = Gateway()
    gateway.register("scripted", transport)
    env = EpisodeEnv(PACK, shared_agent(agent), ScriptedUser(), gateway, ("agent", "scripted"))
    return await run_episode(EpisodeSpec(task=TASK, trial=0, seed=1), env)


def codes(result: EpisodeResult) -> list[str]:
    return [e.code or "" for e in result.events if e.kind == "error"]


async def test_a_text_agents_cut_reply_is_no_parse_error() -> None:
    transport = Replaying([CUT.model_copy(update={"output_limit": 16}), ModelResponse(text="Final Answer: done.")])
    result = await episode(TextProtocolAgent("text:scripted", "scripted", max_tokens=16), transport)
    assert codes(result)[0] == "agent:output_truncated"
    assert not any(c.startswith("agent:parse_error") for c in codes(result))
    cut = next(e for e in result.events if e.code == "agent:output_truncated")
    assert "the output limit of 16 tokens" in (cut.content or "") and result.usage.truncated == 1
    assert transport.requests[0].max_tokens == 16


async def test_a_direct_agents_cut_plan_is_no_parse_error() -> None:
    result = await episode(DirectAgent("direct:scripted", "scripted"), Replaying([CUT]))
    assert codes(result) and set(codes(result)) == {"agent:output_truncated"}


async def test_a_native_agents_cut_call_is_not_a_malformed_one_and_a_whole_one_still_is() -> None:
    cut_call = ToolCall(id="call_a", name="list_rooms", arguments={})
    cut = ModelResponse(tool_calls=(cut_call,), invalid_arguments={"call_a": '{"ro'}, finish_reason="length")
    bad = ModelResponse(tool_calls=(cut_call,), invalid_arguments={"call_a": "{nope"}, finish_reason="tool_calls")
    done = ModelResponse(text="Done.", finish_reason="stop")
    transport = Replaying([cut, done])
    result = await episode(NativeToolAgent("native:scripted", "scripted"), transport)
    assert "agent:output_truncated" in codes(result) and "agent:invalid_arguments" not in codes(result)
    told = transport.requests[1].messages
    assert told[-2].tool_calls[0].id == told[-1].tool_call_id == "call_a"  # the provider's id, sent back as it came
    assert "cut at the output limit" in told[-1].content
    result = await episode(NativeToolAgent("native:scripted", "scripted"), Replaying([bad, done]))
    assert "agent:invalid_arguments" in codes(result) and "agent:output_truncated" not in codes(result)


async def test_a_repeated_provider_id_gets_an_invented_one_in_the_trace_and_the_history() -> None:
    call = ToolCall(id="call_0", name="list_rooms", arguments={})  # every reply numbers its calls from 0
    again = ModelResponse(tool_calls=(call,), finish_reason="tool_calls")
    transport = Replaying([again, again, ModelResponse(text="Done.", finish_reason="stop")])
    result = await episode(NativeToolAgent("native:scripted", "scripted"), transport)
    ids = [e.call.id for e in result.events if e.kind == "tool_call" and e.call is not None and not e.replayed]
    assert ids[:2] == ["call_0", invented_call_id(0)] and len(set(ids)) == len(ids)
    history = transport.requests[2].messages
    sent = [c.id for m in history if m.role == "assistant" for c in m.tool_calls]
    assert sent == ids[:2] and [m.tool_call_id for m in history if m.role == "tool"] == ids[:2]


def test_invented_ids_are_nine_letters_and_digits_and_unique() -> None:
    made = [
        invented_call_id(n, prefix) for prefix in ("call", "gold") for n in (*range(2000), *range(10**5, 10**5 + 50))
    ]
    assert all(len(i) == CALL_ID_LENGTH and i.isascii() and i.isalnum() for i in made)
    assert len(set(made)) == len(made)
    assert invented_call_id(0) == "call00000" and invented_call_id(7, "gold") == "gold00007"
