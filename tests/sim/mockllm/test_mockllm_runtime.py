"""Mock LLM latency distributions, the stats endpoint, and what the server costs: CPU per request, idle waits."""

from __future__ import annotations

import asyncio
import json
import random
import resource
import statistics
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from sim.mockllm import (
    EchoPolicy,
    FixedLatency,
    LognormalLatency,
    MockConfig,
    MockConfigError,
    ScriptPolicy,
    load_mock_config,
    parse_mock_config,
)
from sim.mockllm.latency import LatencySampler
from sim.mockllm.server import start_mock_server
from sim.mockllm.stats import ServerStats
from tests.support.mockllm_server import MockLLMProcess, mock_llm_server

BODY = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x" * 100}]}).encode()
JSON = {"content-type": "application/json"}

FULL_TOML = """
seed = 3
[policy]
kind = "first_tool"
[latency]
kind = "lognormal"
median_s = 0.8
sigma = 0.5
max_s = 10.0
per_output_token_s = 0.004
[rate_limit]
rpm = 500
tpm = 200000
send_headers = true
[[faults]]
kind = "rate_limit"
probability = 0.05
retry_after_s = 2
[[faults]]
kind = "server_error"
probability = 0.05
status = 503
[[faults]]
kind = "timeout"
probability = 0.02
hang_s = 120
[[faults]]
kind = "malformed"
probability = 0.02
"""


def test_full_toml_example_loads(tmp_path: Path) -> None:
    path = tmp_path / "bench.toml"
    path.write_text(FULL_TOML)
    cfg = load_mock_config(path)
    assert isinstance(cfg.latency, LognormalLatency) and cfg.latency.per_output_token_s == 0.004
    assert cfg.rate_limit is not None and (cfg.rate_limit.rpm, cfg.rate_limit.tpm) == (500, 200_000)
    assert [f.probability for f in cfg.faults] == [0.05, 0.05, 0.02, 0.02]


def test_legacy_latency_fields_draw_as_before() -> None:
    sampler = LatencySampler(MockConfig(policy=EchoPolicy(), latency_s=0.1, jitter_s=0.05, seed=4))
    old = random.Random("4:jitter")  # what latency_s + uniform(0, jitter_s) drew before distributions existed
    for _ in range(100):
        assert sampler.delay_s(500, 50) == pytest.approx(0.1 + old.uniform(0.0, 0.05))
    assert LatencySampler(MockConfig(policy=EchoPolicy())).delay_s(10**6, 10**6) == 0.0


def test_fixed_latency_with_per_token_terms() -> None:
    latency = FixedLatency(value_s=0.2, per_output_token_s=0.01, per_prompt_token_s=0.001)
    sampler = LatencySampler(MockConfig(policy=EchoPolicy(), latency=latency))
    assert sampler.delay_s(prompt_tokens=100, completion_tokens=10) == pytest.approx(0.2 + 0.1 + 0.1)


def test_lognormal_has_its_median_tail_cap_and_seed() -> None:
    def draws(seed: int, **kw: Any) -> list[float]:
        latency = LognormalLatency(median_s=0.5, sigma=0.6, **kw)
        sampler = LatencySampler(MockConfig(policy=EchoPolicy(), latency=latency, seed=seed))
        return [sampler.delay_s(0, 0) for _ in range(20_000)]

    values = draws(1)
    assert statistics.median(values) == pytest.approx(0.5, rel=0.03)
    assert sum(v > 1.0 for v in values) / len(values) == pytest.approx(0.124, abs=0.01)  # P(Z > ln 2 / 0.6)
    assert values == draws(1) and values != draws(2)
    assert max(draws(1, max_s=1.0)) == 1.0


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ({"latency_s": 0.1, "latency": {"kind": "fixed", "value_s": 1}}, "field 'latency': Value error, set 'latency'"),
        ({"latency": {"kind": "uniform", "low_s": 2, "high_s": 1}}, "field 'latency.uniform': Value error"),
        ({"latency": {"kind": "lognormal", "median_s": 0, "sigma": 1}}, "field 'latency.lognormal.median_s'"),
        ({"latency": {"kind": "gamma"}}, "field 'latency': Input tag 'gamma'"),
    ],
)
def test_latency_config_errors_name_the_field(extra: dict[str, Any], expected: str) -> None:
    with pytest.raises(MockConfigError, match=expected):
        parse_mock_config({"policy": {"kind": "echo"}, **extra}, Path("m.json"))


async def test_per_token_latency_over_http_and_stats_endpoint() -> None:
    latency = FixedLatency(value_s=0.05, per_output_token_s=0.01)  # echo of 100 chars: 27 tokens, 0.32 s in all
    policy = ScriptPolicy.model_validate({"steps": [{"text": "y" * 104}]})  # 104 // 4 + 1 = 27 completion tokens
    async with (
        await start_mock_server(MockConfig(policy=policy, latency=latency)) as srv,
        aiohttp.ClientSession(headers=JSON) as http,
    ):
        started = time.monotonic()
        async with http.post(f"{srv.url}/chat/completions", data=BODY) as answer:
            usage = (await answer.json())["usage"]
        assert (
            usage["completion_tokens"] == 27 and time.monotonic() - started >= 0.32
        )  # never faster than the per-token latency
        async with http.get(f"{srv.url}/stats") as v1, http.get(srv.url.removesuffix("/v1") + "/stats") as bare:
            stats, same = await v1.json(), await bare.json()
    assert stats.keys() == same.keys() == ServerStats.model_fields.keys()
    assert stats["served"] == stats["admitted"] == 1 and stats["by_status"] == {
        "200": 1
    }  # a stats call counts once done
    assert (same["requests"], same["by_status"]) == (3, {"200": 2})
    assert stats["tokens_charged"] == usage["total_tokens"] and stats["cpu_s"] > 0 and stats["uptime_s"] > 0


async def poll(srv: MockLLMProcess, done: Any, timeout_s: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        stats = await asyncio.to_thread(srv.stats)
        if done(stats) or time.monotonic() > deadline:
            return stats
        await asyncio.sleep(0.05)


@pytest.mark.slow
async def test_thousands_waiting_cost_no_cpu_and_leave_when_clients_do() -> None:
    n = 2000  # connections opened at once: more than aiohttp's default listen backlog of 128
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < n + 100:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, n + 1000), hard))
    config = {"policy": {"kind": "echo"}, "latency": {"kind": "fixed", "value_s": 60}}
    config["faults"] = [{"kind": "timeout", "probability": 0.5, "hang_s": 60}]  # half hang, half just slow
    request = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    request += b"Content-Length: %d\r\n\r\n%s" % (len(BODY), BODY)
    with mock_llm_server(config) as srv:
        streams = await asyncio.gather(*(asyncio.open_connection("127.0.0.1", srv.port) for _ in range(n)))
        for _, writer in streams:
            writer.write(request)
        stats = await poll(srv, lambda s: s["in_flight"] == n)
        assert stats["in_flight"] == n, stats
        await asyncio.sleep(0.2)
        before = await asyncio.to_thread(srv.stats)
        await asyncio.sleep(1.0)
        after = await asyncio.to_thread(srv.stats)
        assert after["cpu_s"] - before["cpu_s"] < 0.05  # sleeping, not spinning: only the two stats calls
        for _, writer in streams:
            writer.close()
        stats = await poll(srv, lambda s: s["in_flight"] == 0)
    assert stats["in_flight"] == 0 and stats["cancelled"] == n and stats["max_in_flight"] == n
