"""Scheduler: token-bucket pacing, header-driven limits, AIMD connection limit, fairness and cancellation.

Everything runs on virtual time: the scheduler and the simulated endpoints sleep on a fake clock that jumps to
the next sleeper whenever nothing else can run, so minutes of pacing take milliseconds and results are exact.
"""

from __future__ import annotations

import asyncio
import gc
import json
from pathlib import Path
from typing import Any

import pytest

from sim.core import ChatMessage, ModelRequest, ToolCall, ToolSpec
from sim.llm import tokens
from sim.llm.admission import token_bucket
from sim.llm.admission.adaptive_limit import AdaptiveLimit, RateHeaders, parse_duration
from sim.llm.admission.decision_log import DecisionLog
from sim.llm.admission.scheduler import EndpointLimits, Permit, Scheduler
from sim.llm.admission.token_bucket import MinuteWindow, TokenBucket, TokenEstimator, encoding_for
from tests.support.virtual_time import EP, FakeEndpoint, VirtualTime, gather, request

# ---- durations and headers


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("1.5s", 1.5),
        ("6m0s", 360.0),
        ("20ms", 0.02),
        ("120ms", 0.12),
        ("1h2m3s", 3723.0),
        ("1m30.5s", 90.5),
        ("3", 3.0),
        ("0.25", 0.25),
        (" 2S ", 2.0),
        ("250us", 0.00025),
        ("", None),
        ("soon", None),
        ("5x", None),
        ("1s junk", None),
        (None, None),
    ],
)
def test_parse_duration(text: str | None, seconds: float | None) -> None:
    assert parse_duration(text) == (pytest.approx(seconds) if seconds is not None else None)


def test_rate_headers_read_one_resource() -> None:
    headers = {"x-ratelimit-limit-requests": "500", "x-ratelimit-remaining-requests": "499"}
    assert RateHeaders.read(headers, "requests") == RateHeaders(500, 499, None)
    assert RateHeaders.read(headers, "tokens") is None
    assert RateHeaders.read({"x-ratelimit-remaining-tokens": "lots"}, "tokens") == RateHeaders(None, None, None)


# ---- the bucket and the adaptive limit, alone


def test_bucket_refills_continuously_up_to_one_minute_and_runs_into_debt() -> None:
    bucket = TokenBucket(6000, 1.0, now=0.0)  # 100 tokens/s, capacity 6000, starts empty (no margin)
    assert bucket.level == 0 and bucket.wait_s(50, 0.0) == pytest.approx(0.5)
    assert bucket.refill(10.0) == pytest.approx(1000)
    assert bucket.refill(1000.0) == 6000  # capped at one minute's worth
    bucket.take(9000, 1000.0)  # oversize: allowed on a full bucket, leaves a debt
    assert bucket.wait_s(100, 1000.0) == pytest.approx(31.0)
    bucket.give(500, 1000.0)
    assert bucket.level == pytest.approx(-2500)


def test_bucket_is_lowered_never_raised() -> None:
    bucket = TokenBucket(10_000, 0.9, now=0.0, level=5000)
    assert bucket.lower_to(8000, 0.0) == 0 and bucket.level == 5000
    assert bucket.lower_to(2000, 0.0) == pytest.approx(3000) and bucket.level == 2000


def test_minute_window_frees_each_quarter_second_a_minute_after_it() -> None:
    window = MinuteWindow()
    window.add(600, at=0.1, now=0.1)
    window.add(300, at=30.0, now=30.0)
    assert window.wait_s(100, limit=1000, now=30.0) == 0.0
    assert window.wait_s(200, limit=1000, now=30.0) == pytest.approx(60.25 - 30.0)  # the bin [0, 0.25) leaves
    window.add(-300, at=30.0, now=40.0)  # a refund: that request used less
    assert window.wait_s(400, limit=1000, now=40.0) == 0.0
    assert window.wait_s(5000, limit=1000, now=40.0) == pytest.approx(60.25 - 40.0)  # oversize: once it is empty
    assert window.wait_s(5000, limit=1000, now=60.25) == 0.0 and window.total == 0


def test_adaptive_limit_grows_only_after_saturated_clean_rounds() -> None:
    limit = AdaptiveLimit(initial=10, floor=2, ceiling=12)
    for _ in range(10):  # a round at 70% use: no growth
        limit.in_use(7)
        assert not limit.finished()
    assert limit.value == 10
    limit.in_use(8)  # 80%: grows by one at the round's end
    assert [limit.finished() for _ in range(10)][-1] and limit.value == 11
    for _ in range(3):
        limit.in_use(limit.value)
        for _ in range(limit.value):
            limit.finished()
    assert limit.value == 12  # ceiling


def overload(limit: AdaptiveLimit) -> bool:
    """Two 429s of the current episode above every level that succeeded: what a cut takes."""
    limit.succeeded(1)
    return [limit.rate_limited(limit.epoch, level=limit.value + 1) for _ in range(2)] == [False, True]


def test_adaptive_limit_cuts_once_per_episode_to_the_floor() -> None:
    limit = AdaptiveLimit(initial=20, floor=10, ceiling=100)
    limit.succeeded(5)  # five at once were answered
    epoch = limit.epoch
    assert not limit.rate_limited(epoch, level=6)  # one 429 above them: as likely a hiccup
    assert limit.rate_limited(epoch, level=6) and limit.value == 16  # two: the provider holds fewer than 6
    assert not any(limit.rate_limited(epoch, level=6) for _ in range(10))  # echoes of the same burst
    assert limit.value == 16
    assert overload(limit) and limit.value == 12  # admitted after the cut: a new episode
    assert overload(limit) and limit.value == 10  # floor
    assert overload(limit) and limit.value == 10
    limit.in_use(10)
    assert not any(limit.rate_limited(epoch) for _ in range(3))  # echoes of an old episode: no cut, but over a
    assert not any(limit.finished() for _ in range(10))  # quarter of the round came back 429, so it does not grow
    assert limit.value == 10
    limit.in_use(10)
    assert any(limit.finished() for _ in range(10)) and limit.value == 11  # a clean saturated round does


def test_adaptive_limit_tolerates_a_trickle_of_429s_and_cuts_on_more() -> None:
    limit = AdaptiveLimit(initial=50, floor=1, ceiling=60)
    assert not any(limit.rate_limited(limit.epoch) for _ in range(12))  # a quarter of 50: not overload
    assert limit.value == 50
    limit.in_use(50)
    # A saturated round within tolerance grows: by 10% (no cut yet: a slow start), by one after a cut.
    assert [limit.finished() for _ in range(50)][-1] and limit.value == 55
    assert not any(limit.rate_limited(limit.epoch) for _ in range(13))
    assert limit.rate_limited(limit.epoch) and limit.value == 44  # the 14th of the round (> 13.75): a spent budget
    limit.in_use(44)
    assert [limit.finished() for _ in range(44)][-1] and limit.value == 45
    small = AdaptiveLimit(initial=4, floor=1, ceiling=60)
    assert [small.rate_limited(small.epoch) for _ in range(3)] == [False, False, True] and small.value == 3


def test_adaptive_limit_cuts_on_429s_above_every_level_that_succeeded() -> None:
    limit = AdaptiveLimit(initial=14, floor=1, ceiling=60)
    for level in range(1, 13):
        limit.succeeded(level)
    assert not any(limit.rate_limited(limit.epoch, level=12) for _ in range(2))  # 12 at once were answered
    assert not limit.rate_limited(limit.epoch, level=13)
    assert limit.rate_limited(limit.epoch, level=14) and limit.value == 11  # the provider holds fewer than 13


def test_adaptive_limit_pinned_never_moves() -> None:
    limit = AdaptiveLimit(initial=20, floor=1, ceiling=100, pinned=7)
    assert limit.value == 7
    assert overload(limit) and limit.value == 7 and limit.epoch == 1  # the episode is still counted
    limit.in_use(7)
    for _ in range(20):
        limit.finished()
    assert limit.value == 7


def test_endpoint_limits_validate() -> None:
    with pytest.raises(ValueError, match="above ceiling"):
        EndpointLimits(floor=10, ceiling=5)
    with pytest.raises(ValueError):
        EndpointLimits(tpm=0)
    with pytest.raises(ValueError):
        EndpointLimits(concurrency=4, unknown=1)  # type: ignore[call-arg]


# ---- pacing against simulated endpoints


@pytest.mark.parametrize("window", [True, False], ids=["sliding-window", "token-bucket"])
async def test_tpm_pacing_reaches_the_limit_without_a_429(window: bool) -> None:
    vt = VirtualTime()
    endpoint = FakeEndpoint(vt, tpm=60_000, window=window, latency_s=3.0)
    sched = Scheduler(EndpointLimits(tpm=60_000), clock=vt.clock, sleep=vt.sleep)
    n = 600  # 900 in + 100 out (300 reserved for output): 600k tokens, ten minutes at the limit
    waits = await vt.run(gather(*(request(sched, endpoint, 900, 300, 100) for _ in range(n))))
    assert endpoint.rejected == 0 and endpoint.ok == n
    rate = endpoint.tokens / vt.now * 60
    assert 0.95 * 60_000 <= rate <= 60_000  # ~98%: the margin, less the first request's wait and latency
    assert max(waits) > 500  # the last ones queued for most of the run, and said so
    assert sched.state(EP)["in_flight"] == 0 and sched.state(EP)["queued"] == 0


async def test_a_burst_after_a_slack_minute_stays_within_a_sliding_window() -> None:
    vt = VirtualTime()
    endpoint = FakeEndpoint(vt, tpm=60_000, window=True, latency_s=1.0)
    sched = Scheduler(EndpointLimits(tpm=60_000), clock=vt.clock, sleep=vt.sleep)

    async def slack_then_burst() -> None:
        for _ in range(40):  # 40k tokens over two minutes: the bucket fills to a minute's worth meanwhile
            await request(sched, endpoint, 900, 100, 100)
            await vt.sleep(2.0)
        assert sched.state(EP)["tpm_level"] > 50_000
        await gather(*(request(sched, endpoint, 900, 100, 100) for _ in range(60)))  # then everyone at once

    await vt.run(slack_then_burst())
    assert endpoint.rejected == 0  # the full bucket alone would have sent ~58k into a window already holding ~29k


async def test_reconcile_returns_the_unused_reservation() -> None:
    vt = VirtualTime()
    sched = Scheduler(EndpointLimits(tpm=60_000, utilization=1.0), clock=vt.clock, sleep=vt.sleep)
    sched.state(EP)  # endpoints start on first use, with an empty bucket (no margin at utilization 1)
    vt.now = 120.0  # the bucket has filled: 60000
    async with sched.admit(EP, 1000, 2000) as permit:
        assert sched.state(EP)["tpm_level"] == 57_000
        permit.completed(1200, 300, {})
    assert sched.state(EP)["tpm_level"] == 58_500  # charged 1500 used, not 3000 reserved
    async with sched.admit(EP, 1000, None) as permit:  # no max_tokens: output_reserve (1024) is reserved
        assert sched.state(EP)["tpm_level"] == 58_500 - 2024
        permit.completed(1000, 5000, {})  # usage beyond the reservation is charged too
    assert sched.state(EP)["tpm_level"] == 52_500
    async with sched.admit(EP, 1000, 500) as permit:
        permit.completed(0, 0, {})  # no usage reported: the reservation stands
    assert sched.state(EP)["tpm_level"] == 51_000
    async with sched.admit(EP, 1000, 500) as permit:
        permit.failed()
    async with sched.admit(EP, 1000, 500):
        pass  # no outcome (an exception): returned as for a failure
    assert sched.state(EP)["tpm_level"] == 51_000


@pytest.mark.parametrize("window", [True, False], ids=["sliding-window", "token-bucket"])
async def test_limits_are_learned_from_headers_and_paced_without_429(window: bool) -> None:
    vt = VirtualTime()
    endpoint = FakeEndpoint(vt, tpm=30_000, window=window, headers=True, latency_s=2.0)
    sched = Scheduler(clock=vt.clock, sleep=vt.sleep)  # nothing configured
    await vt.run(gather(*(request(sched, endpoint, 800, 200, 200) for _ in range(300))))
    assert sched.state(EP)["tpm"] == 30_000
    # The first 20 went out before the limit was known (20k of 30k): what the headers said about them held the
    # rest back, even from a sliding window that frees nothing for a minute.
    assert endpoint.rejected == 0
    assert endpoint.tokens / vt.now * 60 >= 0.95 * 30_000


async def test_headers_reporting_less_remaining_lower_the_bucket() -> None:
    vt = VirtualTime()
    sched = Scheduler(EndpointLimits(tpm=10_000, utilization=1.0), clock=vt.clock, sleep=vt.sleep)
    sched.state(EP)
    vt.now = 60.0
    async with sched.admit(EP, 100, 100) as permit:
        # the provider counts differently and reports only 4000 left: trust it (its limit does not replace ours)
        permit.completed(100, 100, {"x-ratelimit-limit-tokens": "20000", "x-ratelimit-remaining-tokens": "4000"})
    assert sched.state(EP)["tpm_level"] == 4000 and sched.state(EP)["tpm"] == 10_000


async def test_rpm_is_paced_and_learned() -> None:
    vt = VirtualTime()
    sched = Scheduler(EndpointLimits(rpm=120, utilization=1.0), clock=vt.clock, sleep=vt.sleep)
    starts: list[float] = []

    async def one() -> None:
        async with sched.admit(EP, 10, 10) as permit:
            starts.append(vt.now)
            permit.completed(10, 10, {})

    await vt.run(gather(*(one() for _ in range(10))))
    assert starts == pytest.approx([0.5 * (i + 1) for i in range(10)])  # 2 a second, from an empty bucket
    learned = Scheduler(clock=vt.clock, sleep=vt.sleep)
    async with learned.admit(EP, 1, 1) as permit:
        permit.completed(1, 1, {"x-ratelimit-limit-requests": "600", "x-ratelimit-remaining-requests": "3"})
    assert learned.state(EP)["rpm"] == 600
    assert learned.state(EP)["rpm_level"] == pytest.approx(3 - 600 * 0.02)  # what is left, less our margin


async def test_aimd_finds_a_concurrency_limit_without_token_information() -> None:
    vt = VirtualTime()
    endpoint = FakeEndpoint(vt, max_in_flight=12, latency_s=1.0, retry_after_s=0.5)
    sched = Scheduler(EndpointLimits(initial=20, floor=2), max_concurrency=64, clock=vt.clock, sleep=vt.sleep)
    await vt.run(gather(*(request(sched, endpoint, 100, 100, 50) for _ in range(2000))))
    assert endpoint.ok == 2000
    assert endpoint.rejected < 0.08 * 2000  # two per probe above the limit (one 429 may be a hiccup)
    assert 9 <= sched.state(EP)["limit"] <= 14
    assert endpoint.ok / vt.now >= 0.75 * 12  # the provider's capacity is 12 a second


# ---- 429s


async def test_retry_after_pauses_the_endpoint_and_is_returned() -> None:
    vt = VirtualTime()
    sched = Scheduler(clock=vt.clock, sleep=vt.sleep)

    async def go() -> None:
        async with sched.admit(EP, 10, 10) as permit:
            assert permit.rate_limited(5.0, {}) == 5.0
        async with sched.admit(EP, 10, 10, retry=True) as again:  # admission waits out the pause itself
            assert again.waited_s == pytest.approx(5.0) and vt.now == pytest.approx(5.0)
            assert again.rate_limited(None, {"retry-after": "2"}) == 1.0  # the caller parses retry-after; none given
            again_s = vt.now
        async with sched.admit(EP, 10, 10, retry=True) as third:
            assert vt.now == pytest.approx(again_s + 1.0)
            assert third.rate_limited(None, {}) == 2.0  # consecutive 429s saying nothing: backoff doubles
        async with sched.admit(EP, 10, 10) as fourth:
            fourth.completed(10, 10, {})
        async with sched.admit(EP, 10, 10) as fifth:
            assert fifth.rate_limited(None, {}) == 1.0  # a success reset the backoff

    await vt.run(go())


async def test_429_without_retry_after_waits_for_the_reset_the_headers_name() -> None:
    vt = VirtualTime()
    sched = Scheduler(clock=vt.clock, sleep=vt.sleep)
    headers = {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "6m0s"}
    async with sched.admit(EP, 10, 10) as permit:
        assert permit.rate_limited(None, headers) == 360.0
    with_bucket = Scheduler(EndpointLimits(tpm=6000, utilization=1.0), clock=vt.clock, sleep=vt.sleep)
    with_bucket.state(EP)
    vt.now = 100.0
    async with with_bucket.admit(EP, 300, 200) as permit:
        # the provider says 100 tokens are left: our bucket (100 tokens/s) needs 4 more seconds for this request
        wait = permit.rate_limited(None, {"x-ratelimit-remaining-tokens": "100", "x-ratelimit-reset-tokens": "59s"})
    assert wait == pytest.approx(4.0)


async def test_429_cuts_once_per_episode_and_logs_it(tmp_path: Path) -> None:
    vt = VirtualTime()
    log = DecisionLog(tmp_path / "run" / "scheduler.jsonl", console=False)
    sched = Scheduler(EndpointLimits(initial=20, floor=10), clock=vt.clock, sleep=vt.sleep, log=log)

    async def burst() -> None:
        cms = [sched.admit(EP, 10, 10) for _ in range(20)]
        permits: list[Permit] = [await cm.__aenter__() for cm in cms]
        for permit in permits:  # 20 requests sent before the cut all come back 429
            permit.rate_limited(0.0, {})
        for cm in cms:
            await cm.__aexit__(None, None, None)
        assert sched.state(EP)["limit"] == 16 and sched.state(EP)["rate_limit_episodes"] == 1
        for _ in range(5):  # sent after the cut: a new episode once more than a quarter of the limit is 429'd
            async with sched.admit(EP, 10, 10) as late:
                late.rate_limited(0.0, {})
        assert sched.state(EP)["limit"] == 12
        for _ in range(4):
            async with sched.admit(EP, 10, 10) as again:
                again.rate_limited(0.0, {})
        assert sched.state(EP)["limit"] == 10  # the floor

    await vt.run(burst())
    log.close()
    events = [json.loads(line) for line in (tmp_path / "run" / "scheduler.jsonl").read_text().splitlines()]
    cuts = [e for e in events if e["event"] == "limit_cut"]
    assert [(e["limit_before"], e["limit"]) for e in cuts] == [(20, 16), (16, 12), (12, 10)]
    assert sum(e["event"] == "rate_limited" for e in events) == 29
    assert all(e["endpoint"] == EP and "timestamp" in e for e in events)


async def test_pinned_concurrency_is_never_exceeded_nor_cut() -> None:
    vt = VirtualTime()
    endpoint = FakeEndpoint(vt, max_in_flight=3, latency_s=1.0, retry_after_s=0.1)
    sched = Scheduler(EndpointLimits(concurrency=5), clock=vt.clock, sleep=vt.sleep)
    peak = 0

    async def one() -> None:
        nonlocal peak
        async with sched.admit(EP, 10, 10) as permit:
            peak = max(peak, int(sched.state(EP)["in_flight"]))
            ok, headers = await endpoint.call(10, 10)
            if ok:
                permit.completed(10, 10, headers)
            else:
                permit.rate_limited(endpoint.retry_after_s, headers)

    await vt.run(gather(*(one() for _ in range(200))))
    assert peak == 5 and endpoint.rejected > 0
    assert sched.state(EP)["limit"] == 5 and sched.state(EP)["rate_limit_episodes"] > 1


# ---- oversize, fairness, cancellation, many waiters


async def test_request_larger_than_the_bucket_runs_when_it_is_full(tmp_path: Path) -> None:
    vt = VirtualTime()
    log = DecisionLog(tmp_path / "d.jsonl", console=False)
    sched = Scheduler(EndpointLimits(tpm=6000, utilization=1.0), clock=vt.clock, sleep=vt.sleep, log=log)
    order: list[tuple[str, float]] = []

    async def one(name: str, tokens: int) -> None:
        async with sched.admit(EP, tokens, 0) as permit:
            order.append((name, vt.now))
            permit.completed(tokens, 0, {})

    await vt.run(gather(one("huge", 9000), one("small", 100)))
    # huge waits for a full bucket (60 s) and runs into debt; small waits until huge has left the last minute (as a
    # sliding-window limiter counts it), which is longer than repaying the debt (31 s)
    assert order == [("huge", pytest.approx(60.0)), ("small", pytest.approx(120.25))]
    log.close()
    assert '"event": "oversize"' in (tmp_path / "d.jsonl").read_text()


async def test_waiters_are_admitted_first_come_first_served() -> None:
    vt = VirtualTime()
    sched = Scheduler(EndpointLimits(tpm=6000, utilization=1.0), clock=vt.clock, sleep=vt.sleep)
    order: list[str] = []

    async def one(name: str, tokens: int, delay: float) -> None:
        await vt.sleep(delay)
        async with sched.admit(EP, tokens, 0) as permit:
            order.append(name)
            permit.completed(tokens, 0, {})

    # small requests arriving behind a large one do not starve it, though each alone would fit sooner
    await vt.run(gather(one("large", 3000, 0.0), *(one(f"small{i}", 10, 0.1 * (i + 1)) for i in range(5))))
    assert order == ["large", "small0", "small1", "small2", "small3", "small4"]


async def test_cancelled_waiters_leak_nothing() -> None:
    vt = VirtualTime()
    sched = Scheduler(EndpointLimits(concurrency=1, tpm=6000, utilization=1.0), clock=vt.clock, sleep=vt.sleep)
    admitted: list[int] = []

    async def one(i: int) -> None:
        async with sched.admit(EP, 10, 0) as permit:
            admitted.append(i)
            await vt.sleep(1.0)
            permit.completed(10, 0, {})

    async def scenario() -> None:
        tasks = [asyncio.ensure_future(one(i)) for i in range(6)]
        await vt.sleep(0.5)  # 0 waits 0.1 s for tokens and runs; 1..5 queue for the connection
        for i in (1, 3, 4):
            tasks[i].cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    await vt.run(scenario())
    assert admitted == [0, 2, 5]
    state = sched.state(EP)
    assert state["in_flight"] == 0 and state["queued"] == 0
    assert state["tpm_level"] == pytest.approx(vt.now * 100 - 30)  # only the three that ran were charged


async def test_cancel_as_admitted_returns_the_slot_and_the_tokens() -> None:
    vt = VirtualTime()
    sched = Scheduler(EndpointLimits(concurrency=1, tpm=6000, rpm=600, utilization=1.0), clock=vt.clock, sleep=vt.sleep)

    async def waiter() -> None:
        async with sched.admit(EP, 50, 0):
            raise AssertionError("a cancelled waiter must not run")

    sched.state(EP)

    async def scenario() -> None:
        vt.now = 1.0  # 100 tokens, 10 requests in the buckets
        holder = await sched.admit(EP, 0, 0).acquire()  # acquire/release: async with, for callers timing the wait
        task = asyncio.ensure_future(waiter())
        await asyncio.sleep(0)  # queued behind the holder
        holder.release()  # grants the waiter its slot, 50 tokens and a request...
        task.cancel()  # ...but it is cancelled before it runs
        with pytest.raises(asyncio.CancelledError):
            await task

    await vt.run(scenario())
    state = sched.state(EP)
    assert state["in_flight"] == 0 and state["tpm_level"] == pytest.approx(100)
    assert state["rpm_level"] == pytest.approx(9)  # the holder's request only


@pytest.mark.parametrize(("tpm", "most_timers"), [(60_000_000, 0), (6_000_000, 10_000)], ids=["slots", "tokens"])
async def test_ten_thousand_waiters_without_polling(tpm: int, most_timers: int) -> None:
    vt = VirtualTime()
    sched = Scheduler(EndpointLimits(concurrency=100, tpm=tpm), clock=vt.clock, sleep=vt.sleep)
    endpoint = FakeEndpoint(vt, latency_s=0.5)
    await vt.run(gather(*(request(sched, endpoint, 500, 100, 100) for _ in range(10_000))))
    assert endpoint.ok == 10_000 and sched.state(EP)["in_flight"] == 0
    # Waiting on connections needs no timer at all (a release wakes the head); waiting on tokens, at most one per
    # admission (when the head's tokens will be there), never one per waiter.
    assert vt.sleeps - endpoint.ok <= most_timers


async def test_real_clock_paces_and_closes() -> None:
    sched = Scheduler(EndpointLimits(rpm=1200, utilization=1.0))  # 20 a second, empty at the start
    loop = asyncio.get_running_loop()
    start = loop.time()
    for _ in range(3):
        async with sched.admit(EP, 1, 1) as permit:
            permit.completed(1, 1, {})
    assert 0.14 <= loop.time() - start < 1.0
    task = asyncio.ensure_future(sched.admit(EP, 1, 1).__aenter__())
    await asyncio.sleep(0)
    await sched.aclose()
    task.cancel()


async def test_outcome_is_reported_once() -> None:
    sched = Scheduler()
    async with sched.admit(EP, 1, 1) as permit:
        permit.completed(1, 1)
        with pytest.raises(RuntimeError, match="once"):
            permit.failed()


async def test_pacing_summary_is_logged_periodically(tmp_path: Path) -> None:
    vt = VirtualTime()
    log = DecisionLog(tmp_path / "s.jsonl", console=False)
    sched = Scheduler(EndpointLimits(tpm=60_000), clock=vt.clock, sleep=vt.sleep, log=log)
    endpoint = FakeEndpoint(vt, latency_s=1.0)
    await vt.run(gather(*(request(sched, endpoint, 500, 500, 100) for _ in range(100))))
    log.close()
    summaries = [json.loads(x) for x in (tmp_path / "s.jsonl").read_text().splitlines()]
    summaries = [s for s in summaries if s["event"] == "pacing"]
    assert summaries and all(s["tokens_per_min"] <= 60_000 and s["admitted"] > 0 for s in summaries)


def test_decision_log_without_path_is_a_noop() -> None:
    log = DecisionLog(console=False)
    assert not log.enabled
    log.event("limit_cut", endpoint=EP)
    log.close()


# ---- token estimates


def test_encoding_per_model_family() -> None:
    assert encoding_for("openai-chat:gpt-4o-mini@http://h/v1") == "o200k_base"
    assert encoding_for("openai:gpt-4.1") == "o200k_base"
    assert encoding_for("openai-chat:openai/gpt-oss-20b@http://h/v1") == "o200k_base"
    assert encoding_for("openai:o3-mini") == "o200k_base"
    assert encoding_for("openai:gpt-4-turbo") == "cl100k_base"
    assert encoding_for("openai:gpt-3.5-turbo") == "cl100k_base"
    assert encoding_for("openai-chat:SmolLM2-360M@http://127.0.0.1:8080/v1") is None


def _request(model: str, messages: tuple[ChatMessage, ...], tools: tuple[ToolSpec, ...] = ()) -> ModelRequest:
    return ModelRequest(role="agent", model=model, messages=messages, tools=tools)


def test_estimate_matches_count_messages_for_text() -> None:
    messages = (
        ChatMessage(role="system", content="You are a helpful assistant."),
        ChatMessage(role="user", content="hi"),
    )
    expected = tokens.count_messages([m.model_dump(include={"role", "content"}) for m in messages])
    assert Scheduler().estimate_tokens(_request("openai:gpt-4o", messages)) == expected
    fallback = Scheduler().estimate_tokens(_request("openai-chat:llama-3@http://h/v1", messages))
    assert fallback == 3 + (3 + 1 + 7) + (3 + 1 + 1)  # ~4 characters a token, rounded up


def test_estimate_counts_tools_and_calls_once_each(monkeypatch: pytest.MonkeyPatch) -> None:
    counted: list[str] = []
    real = token_bucket._count

    def spy(text: str, encoding: Any) -> int:
        counted.append(text)
        return real(text, encoding)

    monkeypatch.setattr(token_bucket, "_count", spy)
    tools = (ToolSpec(name="get_time", description="Current time.", parameters={"type": "object", "properties": {}}),)
    history = [ChatMessage(role="user", content="what time is it?")]
    estimator = TokenEstimator()
    first = estimator.estimate(_request("openai:gpt-4o", tuple(history), tools))
    history += [
        ChatMessage(role="assistant", tool_calls=(ToolCall(id="c1", name="get_time", arguments={"tz": "UTC"}),)),
        ChatMessage(role="tool", content='{"time": "12:00"}', tool_call_id="c1", name="get_time"),
    ]
    second = estimator.estimate(_request("openai:gpt-4o", tuple(history), tools))
    assert second > first + 10
    assert len(counted) == 2 + 4  # the tool and the first message once; then the call, the result, its id and name
    assert estimator.estimate(_request("openai:gpt-4o", tuple(history), tools)) == second and len(counted) == 6
    del history, tools
    gc.collect()
    assert not estimator._counts  # counts die with their messages: memory follows episodes in flight
