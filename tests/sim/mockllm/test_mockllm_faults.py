"""Mock LLM fault mix: probability rules partition one seeded draw per request, so the rates are what they say."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

import aiohttp
import pytest

from sim.mockllm import EchoPolicy, FaultRule, MockConfig, MockConfigError, parse_mock_config
from sim.mockllm.faults import FaultInjector
from sim.mockllm.server import start_mock_server

# 5% 429, 5% 503, 2% hangs past the client's timeout, 2% truncated bodies: the mix the bench runs.
MIX = [
    FaultRule(kind="rate_limit", probability=0.05, retry_after_s=0.5),
    FaultRule(kind="server_error", probability=0.05, status=503),
    FaultRule(kind="timeout", probability=0.02, hang_s=30),
    FaultRule(kind="malformed", probability=0.02),
]
RATES = {"rate_limit": 0.05, "server_error": 0.05, "timeout": 0.02, "malformed": 0.02}


def kinds(rules: list[FaultRule], n: int, seed: int = 11) -> list[str | None]:
    injector = FaultInjector(rules, seed)
    return [rule.kind if (rule := injector.match(i)) else None for i in range(1, n + 1)]


def test_probabilities_are_exact_shares_not_conditional() -> None:
    seen = Counter(kinds(MIX, 100_000))
    for kind, rate in RATES.items():
        assert seen[kind] / 100_000 == pytest.approx(rate, abs=0.003), kind  # 4 standard deviations
    # A coin per rule (first match wins) would leave 0.95 * 0.95 * 0.98 * 0.98 = 0.867 of requests unfaulted.
    assert seen[None] / 100_000 == pytest.approx(0.86, abs=0.004)


def test_ordinal_rules_come_first_and_do_not_shift_the_draws() -> None:
    every_tenth = [FaultRule(kind="server_error", every=10, status=502), *MIX]
    with_rule, without = kinds(every_tenth, 20_000), kinds(MIX, 20_000)
    assert all(k == "server_error" for k in with_rule[9::10])
    rest = [(a, b) for i, (a, b) in enumerate(zip(with_rule, without, strict=True)) if (i + 1) % 10]
    assert all(a == b for a, b in rest)  # one draw per request either way: the other requests fault alike
    assert kinds(MIX, 500, seed=1) != kinds(MIX, 500, seed=2)


def test_probabilities_over_one_name_the_faults_field() -> None:
    faults = [{"kind": "timeout", "probability": 0.7}, {"kind": "malformed", "probability": 0.4}]
    with pytest.raises(
        MockConfigError, match=r"m\.json: field 'faults': Value error, fault probabilities add up to 1\.1"
    ):
        parse_mock_config({"policy": {"kind": "echo"}, "faults": faults}, Path("m.json"))


@pytest.mark.slow
async def test_fault_mix_over_http_matches_its_rates() -> None:
    n, timeout_s = 2000, 3.0  # far above a normal answer, even on a loaded machine
    seen: Counter[str] = Counter()
    async with await start_mock_server(MockConfig(policy=EchoPolicy(), faults=MIX, seed=5)) as srv:
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
        limit = asyncio.Semaphore(200)

        async def one(session: aiohttp.ClientSession) -> None:
            async with limit:
                try:
                    async with session.post(f"{srv.url}/chat/completions", data=body) as answer:
                        text = await answer.read()
                except TimeoutError:
                    seen["timeout"] += 1
                    return
                if answer.status != 200:
                    seen[{429: "rate_limit", 503: "server_error"}[answer.status]] += 1
                    return
                try:
                    json.loads(text)["choices"]
                except ValueError:
                    seen["malformed"] += 1
                else:
                    seen["ok"] += 1

        timeout = aiohttp.ClientTimeout(total=timeout_s)
        # No pool limit: aiohttp's default of 100 connections would queue requests behind hangs, and time spent
        # queued counts against the total timeout, so a slow machine would turn answers into "timeouts".
        connector = aiohttp.TCPConnector(limit=0)
        headers = {"content-type": "application/json"}
        async with aiohttp.ClientSession(timeout=timeout, headers=headers, connector=connector) as session:
            await asyncio.gather(*(one(session) for _ in range(n)))
        for _ in range(50):  # the server notices the abandoned hangs as their connections close
            if srv.stats.cancelled >= seen["timeout"]:
                break
            await asyncio.sleep(0.02)
        stats = srv.stats
    for kind, rate in RATES.items():
        assert abs(seen[kind] - rate * n) <= 3.5 * (rate * (1 - rate) * n) ** 0.5, (kind, seen)
    assert stats.faults == {k: seen[k] for k in RATES} and stats.served == seen["ok"]
    assert stats.cancelled == seen["timeout"] and stats.in_flight == 0
    assert stats.rate_limited_by == {"fault": seen["rate_limit"]}
