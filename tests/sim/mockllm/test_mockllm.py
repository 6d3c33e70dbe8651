"""Mock LLM server: config files, policies, faults, and the real openai SDK / pydantic-ai over HTTP."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest
from openai import AsyncOpenAI
from pydantic_ai import Agent, ModelAPIError, ModelHTTPError, ModelRateLimitError, UnexpectedModelBehavior
from pydantic_ai.messages import ModelResponse
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai_compatible import OpenAICompatibleProvider

from sim.mockllm import (
    EchoPolicy,
    FaultRule,
    FirstToolPolicy,
    MockConfig,
    MockConfigError,
    RateLimit,
    ScriptPolicy,
    load_mock_config,
    start_mock_server,
)
from sim.mockllm.faults import FaultInjector
from sim.mockllm.policies import build_policy, example_value
from tests.support.mockllm_server import REPO_ROOT, mock_llm_server

WEATHER_SCRIPT = ScriptPolicy.model_validate(
    {"steps": [{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}, {"text": "21C in Paris."}]}
)
USER: list[Any] = [{"role": "user", "content": "Weather in Paris?"}]


def script(steps: list[dict[str, Any]], **kw: Any) -> ScriptPolicy:
    return ScriptPolicy.model_validate({"steps": steps, **kw})


@pytest.fixture
async def http() -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(10, connect=5)) as client:
        yield client


def sdk(url: str, http: httpx2.AsyncClient) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=url, api_key="EMPTY", max_retries=0, http_client=http)


def weather_agent(url: str, http: httpx2.AsyncClient, calls: list[str] | None = None) -> Agent[None, str]:
    model = OpenAIChatModel("mock-model", provider=OpenAICompatibleProvider("mock", openai_client=sdk(url, http)))
    agent = Agent(model)

    @agent.tool_plain
    def get_weather(city: str) -> dict[str, Any]:
        """Current weather for a city."""
        if calls is not None:
            calls.append(city)
        return {"city": city, "temp_c": 21}

    return agent


TOML_EXAMPLE = """
model = "mock-model"
seed = 7
[policy]
kind = "script"
after_end = "Anything else?"
[[policy.steps]]
tool_calls = [{ name = "get_weather", arguments = { city = "Paris" } }]
[[policy.steps]]
text = "It is 21C in Paris."
[policy.by_user]
"book a flight" = [{ tool_calls = [{ name = "search_flights", arguments = { to = "Rome" } }] }, { text = "Booked." }]
[[faults]]
kind = "rate_limit"
at = [1]
retry_after_s = 2
[rate_limit]
rpm = 600
"""


def test_load_toml_and_json_agree(tmp_path: Path) -> None:
    toml_path = tmp_path / "mock.toml"
    toml_path.write_text(TOML_EXAMPLE)
    cfg = load_mock_config(toml_path)
    assert isinstance(cfg.policy, ScriptPolicy)
    assert cfg.policy.by_user["book a flight"][1].text == "Booked."
    assert cfg.faults[0].retry_after_s == 2 and cfg.rate_limit is not None and cfg.rate_limit.rpm == 600
    json_path = tmp_path / "mock.json"
    json_path.write_text(cfg.model_dump_json())
    assert load_mock_config(json_path) == cfg


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("a.json", '{"policy": {"kind": "echo"}, "latncy_s": 1}', "field 'latncy_s'"),
        ("b.json", '{"policy": {"kind": "psychic"}}', "field 'policy'"),
        ("c.json", '{"policy": {"kind": "echo"}, "faults": [{"kind": "timeout"}]}', "field 'faults.0'"),
        ("d.json", '{"policy": {"kind": "script", "steps": [{}]}}', "field 'policy.script.steps.0'"),
        ("e.json", '{"policy": {"kind": "echo"}, "faults": [{"kind": "oops", "at": [1]}]}', "field 'faults.0.kind'"),
        ("f.toml", "policy = {kind = 'echo'\n", "invalid TOML"),
        ("g.json", "{", "invalid JSON"),
        ("h.yaml", "policy: {}", "unknown config format"),
        ("missing.json", None, "cannot read"),
    ],
)
def test_bad_config_names_file_and_field(tmp_path: Path, name: str, text: str | None, expected: str) -> None:
    path = tmp_path / name
    if text is not None:
        path.write_text(text)
    with pytest.raises(MockConfigError) as err:
        load_mock_config(path)
    assert str(path) in str(err.value) and expected in str(err.value)


def test_script_walks_by_position_and_repeats_last() -> None:
    policy = build_policy(WEATHER_SCRIPT)
    first = policy.respond(USER, [])
    assert first.text is None and [(c.id, c.name, c.arguments) for c in first.tool_calls] == [
        ("call_1", "get_weather", '{"city": "Paris"}')
    ]
    history: list[Any] = [*USER, {"role": "assistant", "content": None, "tool_calls": [{"id": "call_1"}]}]
    history.append({"role": "tool", "tool_call_id": "call_1", "content": "{}"})
    assert policy.respond(history, []).text == "21C in Paris."
    history += [{"role": "assistant", "content": "21C in Paris."}, {"role": "user", "content": "thanks"}]
    assert policy.respond(history, []).text == "21C in Paris."  # past the end: the last step again


def test_script_after_end_by_user_and_raw_arguments() -> None:
    cfg = script(
        [{"text": "default"}],
        after_end="bye",
        by_user={"flight": [{"tool_calls": [{"name": "a", "arguments": "{bad json"}, {"name": "b"}]}]},
    )
    policy = build_policy(cfg)
    assert policy.respond([{"role": "user", "content": "hello"}], []).text == "default"
    flight: list[Any] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": [{"type": "text", "text": "a flight"}]},
    ]
    calls = policy.respond(flight, []).tool_calls
    assert [(c.id, c.arguments) for c in calls] == [("call_1", "{bad json"), ("call_2", "{}")]
    flight.append({"role": "assistant", "content": None, "tool_calls": [{"id": "call_1"}, {"id": "call_2"}]})
    assert policy.respond(flight, []).text == "bye"


def test_echo_and_first_tool() -> None:
    messages: list[Any] = [{"role": r, "content": c} for r, c in [("user", "one"), ("assistant", "x"), ("user", "two")]]
    assert build_policy(EchoPolicy()).respond(messages, []).text == "echo: two"
    props: dict[str, Any] = {k: {"type": t} for k, t in [("s", "string"), ("n", "integer"), ("b", "boolean")]}
    props |= {"e": {"enum": ["low", "high"]}, "optional": {"type": "string"}}
    props["o"] = {"type": "object", "properties": {"k": {"type": ["null", "number"]}}, "required": ["k"]}
    schema = {"type": "object", "properties": props, "required": ["s", "n", "b", "e", "o"]}
    tools: list[Any] = [
        {"type": "function", "function": {"name": "first", "parameters": schema}},
        {"function": {"name": "2nd"}},
    ]
    reply = build_policy(FirstToolPolicy()).respond(messages, tools)
    assert reply.tool_calls[0].name == "first"
    assert json.loads(reply.tool_calls[0].arguments) == {"s": "x", "n": 1, "b": True, "e": "low", "o": {"k": 1}}
    after: list[Any] = [*messages, {"role": "assistant", "tool_calls": [{}]}, {"role": "tool", "content": "ok"}]
    assert build_policy(FirstToolPolicy()).respond(after, tools).text == "done"
    assert example_value({"anyOf": [{"type": "null"}, {"type": "integer"}]}) == 1


def test_fault_matching_is_deterministic() -> None:
    rules = [FaultRule(kind="server_error", at=[2]), FaultRule(kind="malformed", every=5)]
    rules.append(FaultRule(kind="rate_limit", probability=0.3))

    def kinds_for(seed: int) -> list[str | None]:
        injector = FaultInjector(rules, seed=seed)
        return [getattr(injector.match(i), "kind", None) for i in range(1, 201)]

    kinds = kinds_for(3)
    assert kinds == kinds_for(3) and kinds != kinds_for(4)
    assert kinds[1] == "server_error" and kinds[4] == kinds[9] == "malformed"
    assert 25 < kinds.count("rate_limit") < 75  # ~0.3 of the 159 requests left over


async def test_openai_sdk_sees_faithful_wire_format(http: httpx2.AsyncClient) -> None:
    async with await start_mock_server(MockConfig(policy=WEATHER_SCRIPT, model="gpt-mock")) as srv:
        client = sdk(srv.url, http)
        first = await client.chat.completions.create(model="any", messages=USER)
        assert first.id == "chatcmpl-mock000001" and first.object == "chat.completion" and first.model == "gpt-mock"
        choice = first.choices[0]
        assert choice.finish_reason == "tool_calls" and choice.message.content is None
        call: Any = (choice.message.tool_calls or [])[0]
        assert (call.id, call.type, call.function.name) == ("call_1", "function", "get_weather")
        assert json.loads(call.function.arguments) == {"city": "Paris"}
        assert first.usage is not None
        assert first.usage.total_tokens == first.usage.prompt_tokens + first.usage.completion_tokens
        assert first.usage.prompt_tokens > 0  # the body's bytes // 4: exact checks in test_mockllm_limits.py

        follow: list[Any] = [
            *USER,
            choice.message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": "call_1"},
        ]
        follow[-1]["content"] = '{"temp_c": 21}'
        second = await client.chat.completions.create(model="any", messages=follow, tool_choice="auto")
        assert second.choices[0].finish_reason == "stop" and second.choices[0].message.content == "21C in Paris."
        assert [m.id for m in (await client.models.list()).data] == ["gpt-mock"]
        health = await http.get(srv.url.removesuffix("/v1") + "/health")
        assert health.json() == {"status": "ok"}
        assert srv.stats.completions == 2 and srv.stats.by_status[200] == 4 and srv.stats.tool_calls == 1


async def test_pydantic_ai_tool_call_then_text(http: httpx2.AsyncClient) -> None:
    calls: list[str] = []
    async with await start_mock_server(MockConfig(policy=WEATHER_SCRIPT)) as srv:
        result = await weather_agent(srv.url, http, calls).run("Weather in Paris?")
    assert result.output == "21C in Paris." and calls == ["Paris"]
    assert result.usage.requests == 2 and result.usage.tool_calls == 1 and result.usage.input_tokens > 0
    last = result.all_messages()[-1]
    assert isinstance(last, ModelResponse) and last.model_name == "mock-model"


async def test_pydantic_ai_first_tool_policy(http: httpx2.AsyncClient) -> None:
    calls: list[str] = []
    async with await start_mock_server(MockConfig(policy=FirstToolPolicy(done_text="all done"))) as srv:
        result = await weather_agent(srv.url, http, calls).run("anything")
    assert (result.output, calls) == ("all done", ["x"])


async def test_concurrent_conversations_walk_their_own_scripts(http: httpx2.AsyncClient) -> None:
    by_user = {
        "Rome": [{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Rome"}}]}, {"text": "Rome: 25C"}]
    }
    policy = script(WEATHER_SCRIPT.model_dump()["steps"], by_user=by_user)
    async with await start_mock_server(MockConfig(policy=policy, latency_s=0.05)) as srv:
        runs = [weather_agent(srv.url, http).run(p) for p in ("Paris?", "Rome?", "Paris again?", "Rome again?")]
        outputs = [r.output for r in await asyncio.gather(*runs)]
        assert outputs == ["21C in Paris.", "Rome: 25C", "21C in Paris.", "Rome: 25C"]
        assert srv.stats.max_in_flight >= 2


async def test_rate_limit_fault_surfaces_retry_after(http: httpx2.AsyncClient) -> None:
    faults = [
        FaultRule(kind="rate_limit", at=[1], retry_after_s=2),
        FaultRule(kind="rate_limit", at=[2], retry_after_s=1.5, retry_after_ms_header=False),
    ]
    async with await start_mock_server(MockConfig(policy=WEATHER_SCRIPT, faults=faults)) as srv:
        agent = weather_agent(srv.url, http)
        with pytest.raises(ModelRateLimitError) as err:
            await agent.run("Weather?")
        e = err.value
        assert isinstance(e, ModelHTTPError)  # the rate-limit error is an HTTP error too
        assert (e.status_code, e.retry_after, (e.headers or {})["retry-after"]) == (429, 2.0, "2")
        assert e.provider_error_code == "rate_limit_exceeded" and isinstance(e.__cause__, openai.RateLimitError)
        with pytest.raises(ModelRateLimitError) as err:
            await agent.run("Weather?")
        e = err.value
        assert isinstance(e, ModelHTTPError)
        assert e.retry_after == 2.0 and "retry-after-ms" not in (e.headers or {})  # whole seconds, rounded up
        assert (await agent.run("Weather?")).output == "21C in Paris."  # the script resumes
        assert srv.stats.rate_limited == 2 and srv.stats.completions == 4


async def test_rpm_limiter_computes_retry_after(http: httpx2.AsyncClient) -> None:
    cfg = MockConfig(policy=EchoPolicy(), rate_limit=RateLimit(rpm=2, window_s=0.4))
    async with await start_mock_server(cfg) as srv:
        body = {"model": "m", "messages": USER}
        codes = [(await http.post(f"{srv.url}/chat/completions", json=body)).status_code for _ in range(2)]
        limited = await http.post(f"{srv.url}/chat/completions", json=body)
        assert codes == [200, 200] and limited.status_code == 429
        wait_ms = int(limited.headers["retry-after-ms"])
        assert 0 < wait_ms <= 400 and limited.headers["retry-after"] == "1"
        assert limited.json()["error"]["code"] == "rate_limit_exceeded"
        await asyncio.sleep(wait_ms / 1000 + 0.05)
        assert (await http.post(f"{srv.url}/chat/completions", json=body)).status_code == 200


@pytest.mark.parametrize("status", [500, 503])
async def test_server_error_is_model_http_error(http: httpx2.AsyncClient, status: int) -> None:
    cfg = MockConfig(policy=WEATHER_SCRIPT, faults=[FaultRule(kind="server_error", every=1, status=status)])
    async with await start_mock_server(cfg) as srv:
        with pytest.raises(ModelHTTPError) as err:
            await weather_agent(srv.url, http).run("Weather?")
        assert err.value.status_code == status and not isinstance(err.value, ModelRateLimitError)
        assert srv.stats.by_status == {status: 1} and srv.stats.faults == {"server_error": 1}


@pytest.mark.parametrize(
    ("variant", "error"),
    [
        ("invalid_json", ModelAPIError),
        ("missing_choices", UnexpectedModelBehavior),
        ("not_json", UnexpectedModelBehavior),
    ],
)
async def test_malformed_bodies_raise(http: httpx2.AsyncClient, variant: str, error: type[Exception]) -> None:
    cfg = MockConfig(
        policy=WEATHER_SCRIPT, faults=[FaultRule.model_validate({"kind": "malformed", "at": [1], "variant": variant})]
    )
    async with await start_mock_server(cfg) as srv:
        with pytest.raises(error):
            await weather_agent(srv.url, http).run("Weather?")
        raw = await http.post(f"{srv.url}/chat/completions", json={"model": "m", "messages": USER})
        assert raw.status_code == 200 and raw.json()["choices"]  # only request 1 was malformed


async def test_hang_times_out_on_short_client_timeout() -> None:
    cfg = MockConfig(
        policy=EchoPolicy(),
        faults=[FaultRule(kind="timeout", at=[1], hang_s=30), FaultRule(kind="timeout", at=[2], hang_s=0.1)],
    )
    srv = await start_mock_server(cfg)
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(0.3)) as short:
        client = sdk(srv.url, short)
        started = time.monotonic()
        with pytest.raises(openai.APITimeoutError):
            await client.chat.completions.create(model="m", messages=USER)
        assert time.monotonic() - started < 25  # the client's 0.3 s timeout, not the 30 s hang
        slow_but_in_time = await client.chat.completions.create(model="m", messages=USER)
        assert slow_but_in_time.choices[0].message.content == "echo: Weather in Paris?"
    started = time.monotonic()
    await srv.close()  # must not wait out the 30 s hang
    assert time.monotonic() - started < 25 and srv.stats.faults == {"timeout": 2}


async def test_stream_and_bad_requests_get_400(http: httpx2.AsyncClient) -> None:
    async with await start_mock_server(MockConfig(policy=EchoPolicy())) as srv:
        with pytest.raises(openai.BadRequestError, match="Streaming is not supported"):
            await sdk(srv.url, http).chat.completions.create(model="m", messages=USER, stream=True)
        bad = await http.post(
            f"{srv.url}/chat/completions", content=b"{nope", headers={"content-type": "application/json"}
        )
        assert bad.status_code == 400 and bad.json()["error"]["type"] == "invalid_request_error"
        missing = await http.get(srv.url.removesuffix("/v1") + "/v2/nothing")
        assert missing.status_code == 404 and "error" in missing.json()
        extra = {"model": "m", "messages": USER, "parallel_tool_calls": False, "max_completion_tokens": 9, "x_new": 1}
        assert (await http.post(f"{srv.url}/chat/completions", json=extra)).status_code == 200


async def test_subprocess_server_serves_and_is_stopped_by_pid(http: httpx2.AsyncClient) -> None:
    action = 'Thought: look it up\nAction: get_weather\nAction Input: {"city": "Paris"}'
    react = script([{"text": action}, {"text": "Final Answer: 21C"}])
    with mock_llm_server(MockConfig(policy=react)) as srv:
        assert srv.url == f"http://127.0.0.1:{srv.port}/v1"
        client = sdk(srv.url, http)
        first = await client.chat.completions.create(model="m", messages=USER)
        assert "Action: get_weather" in (first.choices[0].message.content or "")
        messages: list[Any] = [*USER, {"role": "assistant", "content": first.choices[0].message.content}]
        messages.append({"role": "user", "content": 'Observation: {"temp_c": 21}'})
        second = await client.chat.completions.create(model="m", messages=messages)
        assert second.choices[0].message.content == "Final Answer: 21C"
        assert srv.stats()["completions"] == 2
        pid = srv.pid
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_subprocess_bad_config_reports_field() -> None:
    with (
        pytest.raises(RuntimeError, match=r"field 'policy\.echo\.prefx'"),
        mock_llm_server({"policy": {"kind": "echo", "prefx": "?"}}),
    ):
        pass


def test_cli_exits_after_max_lifetime(tmp_path: Path) -> None:
    port_file = tmp_path / "port"
    cmd = [sys.executable, "-m", "sim.mockllm", "--port-file", str(port_file), "--max-lifetime", "0.3"]
    done = subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, timeout=20, check=False)
    assert done.returncode == 0, done.stderr
    assert int(port_file.read_text()) > 0 and b"listening on http://127.0.0.1:" in done.stderr
