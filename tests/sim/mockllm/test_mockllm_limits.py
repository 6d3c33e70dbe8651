"""Mock LLM rate limits: token buckets for requests and tokens, exact 429 waits, x-ratelimit-* headers."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from sim.mockllm import EchoPolicy, FaultRule, MockConfig, MockConfigError, RateLimit, parse_mock_config
from sim.mockllm.limits import RateLimiter, go_duration
from sim.mockllm.server import start_mock_server


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def http() -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(10, connect=5)) as client:
        yield client


def payload(user_chars: int) -> bytes:
    """A request body whose prompt estimate is len(body) // 4."""
    return json.dumps({"model": "m", "messages": [{"role": "user", "content": "x" * user_chars}]}).encode()


def echo_cost(body: bytes) -> int:
    """What the echo policy's answer to `body` costs: usage.total_tokens, i.e. prompt + completion."""
    user = json.loads(body)["messages"][-1]["content"]
    return len(body) // 4 + len("echo: " + user) // 4 + 1


async def post(http: httpx2.AsyncClient, url: str, body: bytes) -> httpx2.Response:
    return await http.post(f"{url}/chat/completions", content=body, headers={"content-type": "application/json"})


DURATIONS = [(0, "0s"), (0.0001, "1ms"), (0.12, "120ms"), (1, "1s"), (8.64, "8.64s"), (61.5, "1m1.5s")]
DURATIONS += [(360, "6m0s"), (3600, "1h0m0s"), (3725.25, "1h2m5.25s")]


def seconds(duration: str) -> float:
    """Parse what go_duration writes."""
    if duration.endswith("ms"):
        return int(duration[:-2]) / 1000
    match = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?([\d.]+)s", duration)
    assert match, duration
    hours, minutes, secs = match.groups()
    return int(hours or 0) * 3600 + int(minutes or 0) * 60 + float(secs)


@pytest.mark.parametrize(("secs", "text"), DURATIONS)
def test_reset_durations_are_go_style_rounded_up(secs: float, text: str) -> None:
    assert go_duration(secs) == text and seconds(text) == pytest.approx(secs, abs=0.001)


def test_request_bucket_refills_continuously() -> None:
    clock = Clock()
    limiter = RateLimiter(RateLimit(rpm=2, window_s=10), clock=clock)  # refills 0.2 requests a second
    assert limiter.acquire(1).admitted and limiter.acquire(1).admitted  # starts full: a burst of rpm
    rejected = limiter.acquire(1)
    assert (rejected.admitted, rejected.reason, rejected.wait_s) == (False, "requests", pytest.approx(5.0))
    assert "on requests per 10s (RPM): Limit 2, Used 2, Requested 1. Please try again in 5s." in rejected.message
    clock.now = 4.0
    assert limiter.acquire(1).wait_s == pytest.approx(1.0)  # rejections are not charged
    clock.now = 5.0
    assert limiter.acquire(1).admitted
    assert limiter.headers() == {
        "x-ratelimit-limit-requests": "2",
        "x-ratelimit-remaining-requests": "0",
        "x-ratelimit-reset-requests": "10s",
    }


def test_token_bucket_waits_too_large_and_both_limits() -> None:
    clock = Clock()
    limiter = RateLimiter(RateLimit(tpm=100), clock=clock)  # 100 tokens a minute
    assert limiter.acquire(60).admitted
    rejected = limiter.acquire(50)
    assert (rejected.reason, rejected.wait_s) == ("tokens", pytest.approx(6.0))  # 10 missing at 100/60 a second
    assert "per min (TPM): Limit 100, Used 60, Requested 50" in rejected.message
    too_large = limiter.acquire(101)
    assert (too_large.admitted, too_large.reason, too_large.wait_s) == (False, "too_large", None)
    assert "Request too large" in too_large.message
    clock.now = 6.0
    assert limiter.acquire(50).admitted
    assert limiter.headers()["x-ratelimit-remaining-tokens"] == "0"

    both = RateLimiter(RateLimit(rpm=1, tpm=1000, window_s=60), clock=clock)
    assert both.acquire(10).admitted
    blocked = both.acquire(10)
    assert (blocked.reason, blocked.wait_s) == ("requests", pytest.approx(60.0))
    assert both.headers()["x-ratelimit-remaining-tokens"] == "990"  # the rejected request took nothing


def test_overloaded_bucket_admits_the_limit_rate() -> None:
    # A client offering 100 tokens every 10 ms (10x the limit) for 120 s gets the full bucket once, then the rate.
    clock = Clock()
    limiter = RateLimiter(RateLimit(tpm=6000, window_s=60), clock=clock)
    admitted = 0
    for step in range(12_000):
        clock.now = step * 0.01
        admitted += 100 if limiter.acquire(100).admitted else 0
    assert 6000 + 6000 * 119.99 / 60 - 100 <= admitted <= 6000 + 6000 * 120 / 60


def test_sliding_window_frees_each_charge_a_window_after_it() -> None:
    clock = Clock()
    limiter = RateLimiter(RateLimit(tpm=100, algorithm="sliding_window"), clock=clock)
    assert limiter.acquire(60).admitted  # at 0
    clock.now = 30.0
    assert limiter.acquire(40).admitted  # at 30: the window holds its whole limit
    assert limiter.headers() == {
        "x-ratelimit-limit-tokens": "100",
        "x-ratelimit-remaining-tokens": "0",
        "x-ratelimit-reset-tokens": "1m0s",  # full again when the newest charge leaves
    }
    clock.now = 50.0  # a token bucket would have refilled 83 by now; the window has freed nothing
    rejected = limiter.acquire(50)
    assert (rejected.admitted, rejected.reason, rejected.wait_s) == (False, "tokens", pytest.approx(10.0))
    clock.now = 60.0  # the first charge leaves: 60 back at once
    assert limiter.headers()["x-ratelimit-remaining-tokens"] == "60"
    assert limiter.acquire(50).admitted
    assert limiter.acquire(20).wait_s == pytest.approx(30.0)  # 10 left: waits for the charge made at 30


def test_overloaded_window_admits_the_limit_per_window() -> None:
    # A client offering 100 tokens every 10 ms for 120 s gets exactly the limit in each window: no initial burst.
    clock = Clock()
    limiter = RateLimiter(RateLimit(tpm=6000, window_s=60, algorithm="sliding_window"), clock=clock)
    admitted = 0
    for step in range(12_000):
        clock.now = step * 0.01
        admitted += 100 if limiter.acquire(100).admitted else 0
    assert admitted == 2 * 6000


async def test_usage_is_the_charge_and_headers_count_it_down(http: httpx2.AsyncClient) -> None:
    cfg = MockConfig(policy=EchoPolicy(), rate_limit=RateLimit(rpm=100, tpm=1000, window_s=600))
    body = payload(200)
    cost = echo_cost(body)
    async with await start_mock_server(cfg) as srv:
        for k in (1, 2):
            answer = await post(http, srv.url, body)
            usage = answer.json()["usage"]
            assert (usage["prompt_tokens"], usage["total_tokens"]) == (len(body) // 4, cost)
            h = answer.headers
            assert (h["x-ratelimit-limit-tokens"], h["x-ratelimit-remaining-tokens"]) == ("1000", str(1000 - k * cost))
            assert (h["x-ratelimit-limit-requests"], h["x-ratelimit-remaining-requests"]) == ("100", str(100 - k))
            assert seconds(h["x-ratelimit-reset-requests"]) == pytest.approx(k * 6.0, abs=0.5)  # 100 per 600 s
            assert seconds(h["x-ratelimit-reset-tokens"]) == pytest.approx(k * cost * 0.6, abs=0.5)  # 1000 per 600 s
        big = payload(1000)  # 517 tokens: fits once in the 766 left
        assert (await post(http, srv.url, big)).status_code == 200
        limited = await post(http, srv.url, big)
        assert limited.status_code == 429 and limited.json()["error"]["type"] == "tokens"
        left = int(limited.headers["x-ratelimit-remaining-tokens"])
        expected_ms = (echo_cost(big) - left) * 600 / 1000 * 1000  # missing tokens at 1000 per 600 s
        assert abs(int(limited.headers["retry-after-ms"]) - expected_ms) <= 600  # within one token's refill
        assert "TPM" in limited.json()["error"]["message"]
        assert (
            srv.stats.tokens_charged
            == 2 * cost + echo_cost(big)
            == srv.stats.prompt_tokens + srv.stats.completion_tokens
        )
        assert srv.stats.rate_limited_by == {"tokens": 1} and srv.stats.admitted == 3


async def test_waiting_as_told_is_enough(http: httpx2.AsyncClient) -> None:
    cfg = MockConfig(policy=EchoPolicy(), rate_limit=RateLimit(tpm=400, window_s=1))  # 400 tokens a second
    body = payload(500)  # 267 tokens: the second one waits for 134 to refill, a third of a second
    async with await start_mock_server(cfg) as srv:
        assert (await post(http, srv.url, body)).status_code == 200
        limited = await post(http, srv.url, body)
        wait_ms = int(limited.headers["retry-after-ms"])
        assert limited.status_code == 429 and 200 < wait_ms <= 340 and limited.headers["retry-after"] == "1"
        await asyncio.sleep(wait_ms / 1000)
        assert (await post(http, srv.url, body)).status_code == 200


async def test_too_large_has_no_retry_after(http: httpx2.AsyncClient) -> None:
    cfg = MockConfig(policy=EchoPolicy(), rate_limit=RateLimit(tpm=100))
    async with await start_mock_server(cfg) as srv:
        answer = await post(http, srv.url, payload(1000))
        assert answer.status_code == 429 and "retry-after" not in answer.headers
        assert answer.json()["error"]["message"].startswith("Request too large for mock-model")
        assert srv.stats.rate_limited_by == {"too_large": 1} and srv.stats.tokens_charged == 0


async def test_faults_and_bad_requests_carry_headers_and_are_not_charged(http: httpx2.AsyncClient) -> None:
    faults = [FaultRule(kind="rate_limit", at=[1]), FaultRule(kind="server_error", at=[2])]
    cfg = MockConfig(policy=EchoPolicy(), faults=faults, rate_limit=RateLimit(rpm=10))
    async with await start_mock_server(cfg) as srv:
        answers = [await post(http, srv.url, body) for body in (payload(10), payload(10), b"{nope", payload(10))]
        assert [a.status_code for a in answers] == [429, 500, 400, 200]
        assert [a.headers["x-ratelimit-remaining-requests"] for a in answers] == ["10", "10", "10", "9"]
        assert "x-ratelimit-limit-tokens" not in answers[0].headers  # only configured limits are reported
        assert srv.stats.rate_limited_by == {"fault": 1} and srv.stats.faults == {"rate_limit": 1, "server_error": 1}


@pytest.mark.parametrize("limit", [RateLimit(rpm=5, tpm=10_000, send_headers=False), None])
async def test_no_headers_when_off_or_unlimited(http: httpx2.AsyncClient, limit: RateLimit | None) -> None:
    async with await start_mock_server(MockConfig(policy=EchoPolicy(), rate_limit=limit)) as srv:
        answer = await post(http, srv.url, payload(10))
        assert answer.status_code == 200 and not any(k.startswith("x-ratelimit") for k in answer.headers)


CONFIG_ERRORS = [
    ({"window_s": 1}, "field 'rate_limit': Value error, a rate limit needs 'rpm', 'tpm'"),
    ({"tpm": 0}, "field 'rate_limit.tpm'"),
    ({"rpm": 5, "burst": 2}, "field 'rate_limit.burst': Extra inputs"),
]


@pytest.mark.parametrize(("rate_limit", "field"), CONFIG_ERRORS)
def test_rate_limit_config_errors_name_the_field(rate_limit: dict[str, Any], field: str) -> None:
    with pytest.raises(MockConfigError, match=field.replace("(", r"\(")) as err:
        parse_mock_config({"policy": {"kind": "echo"}, "rate_limit": rate_limit}, Path("m.json"))
    assert "m.json" in str(err.value)
