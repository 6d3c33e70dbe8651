"""Limits that adapt to what the provider says: the connection limit (AIMD on 429s), and the per-minute budgets
(TPM, RPM), configured or learned, that the ``x-ratelimit-*`` headers correct.

Pure state: the scheduler reports grants, finished requests, 429s and headers; these decide the limits.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

from sim.llm.admission.decision_log import DecisionLog
from sim.llm.admission.reported_level import ReportedLevel
from sim.llm.admission.token_bucket import MinuteWindow, TokenBucket

_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|h|m|s)")
_OVERLOAD_429S = 2
"""429s it takes to call a round overloaded: one in a round is as likely a provider's hiccup at any level."""
_UNIT_S = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


class AdaptiveLimit:
    """``value`` requests may be in flight. Pinned when ``pinned`` is set: it never moves.

    A round lasts until as many requests finish as the limit was when it began (about one latency). The limit grows
    by ``step`` (10% until the first cut, and when token budgets pace the endpoint) after a round in which at least
    ``grow_at`` of it was in use and 429s were no more than ``tolerance`` of it: growing an unsaturated limit would
    only raise a ceiling nobody reaches. 429s are overload, and cut the limit by ``cut_to``, once a round has two
    for requests admitted with more requests in flight (their ``level``) than any that succeeded this round or the
    last, and they are most of the requests the round admitted that high (the provider's capacity is below that
    level), or more than ``tolerance`` of it (and more than two) came back 429 (every level refused: a spent
    budget). Only 429s of requests admitted after the last cut (``epoch``) count: the rest of a burst was caused by
    requests sent before the cut, and cutting for each would collapse the limit to the floor.

    Why not cut on every 429: a trickle of 429s unrelated to load (a provider's own hiccups, other users of a
    shared key) goes on whatever the limit, and cutting on each takes the limit to about 1.2/sqrt(share) (TCP's
    loss-rate law): a 5% fault mix took it from 50 to 4-9. Such a 429 comes at levels that also succeed. Why a
    share above the proven level and not just two: with the queue full every admission is at the top level, which
    after a grow (or while a wave's answers come in) nothing has succeeded at yet for a latency; two scattered
    429s among the dozens sent up there cut a 5% fault mix's limit from 100 to 65-85 (1.4x its wall time). Above
    a real capacity nearly every request is refused.
    """

    __slots__ = (
        "_above",
        "_grow_at",
        "_left",
        "_limited",
        "_limited_now",
        "_need",
        "_ok_level",
        "_ok_level_before",
        "_peak",
        "_sent_above",
        "ceiling",
        "cut_to",
        "epoch",
        "floor",
        "pinned",
        "step",
        "tolerance",
        "value",
    )

    def __init__(
        self,
        initial: int,
        floor: int,
        ceiling: int,
        pinned: int | None = None,
        step: int = 1,
        grow_at: float = 0.8,
        cut_to: float = 0.8,
        tolerance: float = 0.25,
    ) -> None:
        self.floor, self.ceiling, self.pinned, self.step, self.cut_to = floor, ceiling, pinned, step, cut_to
        self.tolerance = tolerance
        self.value = pinned if pinned is not None else min(max(initial, floor), ceiling)
        self.epoch = 0
        """Rate-limit episodes so far; a request remembers the epoch it was admitted in."""
        self._grow_at = grow_at
        self._ok_level = self._ok_level_before = 0
        """The highest level (requests in flight, itself included) at which a request succeeded, this round and
        the last."""
        self._begin_round()

    def _begin_round(self) -> None:
        self._left = self.value
        self._peak = 0
        self._limited = 0  # 429s this round
        self._limited_now = 0  # 429s this round for requests admitted in the current epoch
        self._above = 0  # those of them admitted above every level that succeeded
        self._sent_above = 0  # requests admitted this round above every level that succeeded then
        self._need = math.ceil(self._grow_at * self.value)

    def in_use(self, in_flight: int) -> None:
        """Called on every grant, with the request's level: the round's peak use, and what went above proven levels."""
        if in_flight > self._peak:
            self._peak = in_flight
        if in_flight > self._ok_level and in_flight > self._ok_level_before:
            self._sent_above += 1

    def finished(self, paced: bool = False) -> bool:
        """A request finished (not by a 429). True when the limit grew. ``paced``: token budgets keep this endpoint
        under its rate limits, so the connection limit only has to get out of their way: it grows by 10%."""
        self._left -= 1
        if self._left > 0:
            return False
        clean = self._limited <= self.tolerance * self.value
        grow = self.pinned is None and clean and self._peak >= self._need and self.value < self.ceiling
        if grow:
            # 10% a round until the first cut (a slow start: 20 to 100 connections in 18 rounds, not 80), or while
            # token budgets pace the endpoint; one a round near a capacity already found.
            fast = paced or self.epoch == 0
            self.value = min(self.value + max(self.step, self.value // 10 if fast else 0), self.ceiling)
        # What succeeded is remembered for this round and the next; a cut keeps it (a cut proves nothing about it).
        self._ok_level_before, self._ok_level = self._ok_level, 0
        self._begin_round()
        return grow

    def succeeded(self, level: int) -> None:
        """A request admitted at ``level`` (requests in flight, itself included) was answered: that many fit."""
        if level > self._ok_level:
            self._ok_level = level

    def scattered(self, level: int, echo: bool) -> bool:
        """Whether a 429 at ``level`` that opened no episode is a hiccup, not overload: something succeeded this round
        or the last (before that nothing is known), and it came at a level that succeeded, or above them but among
        many that were not refused there (``echo``: admitted before the last cut, it is the overload found)."""
        proven = max(self._ok_level, self._ok_level_before)
        return proven > 0 and (level <= proven or not (echo or self._mostly_refused_above()))

    def _mostly_refused_above(self) -> bool:
        """Most of the requests this round admitted above every level that succeeded came back 429: above a real
        capacity nearly all are; a fault mix's scattered 429s are a few of the dozens a full queue sends up there."""
        return self._above * 2 > self._sent_above

    def rate_limited(self, epoch: int, level: int | None = None) -> bool:
        """A 429 for a request admitted in ``epoch`` at ``level`` (None: unknown, the round's share alone decides).
        True when it opens a new episode (the limit is cut, unless pinned); False for the echoes of an episode
        already handled, and for a 429 that is not overload."""
        self._limited += 1
        if epoch != self.epoch:
            return False
        self._limited_now += 1
        proven = max(self._ok_level, self._ok_level_before)
        self._above += level is not None and proven > 0 and level > proven
        above = self._above >= _OVERLOAD_429S and self._mostly_refused_above()
        if not above and self._limited_now <= max(self.tolerance * self.value, _OVERLOAD_429S):
            return False
        self.epoch += 1
        if self.pinned is None:
            self.value = max(self.floor, min(self.value - 1, math.floor(self.value * self.cut_to)))
        self._begin_round()
        return True


def parse_duration(text: str | None) -> float | None:
    """Seconds in a provider duration: Go style ('1h2m3s', '6m0s', '1.5s', '120ms') or plain seconds ('3', '0.5').
    None when absent or unreadable (a caller falls back rather than fails on a header it cannot read)."""
    if text is None:
        return None
    text = text.strip().lower()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    total, end = 0.0, 0
    for match in _DURATION_PART.finditer(text):
        if match.start() != end:
            return None
        total += float(match.group(1)) * _UNIT_S[match.group(2)]
        end = match.end()
    return total if end and end == len(text) else None


@dataclass(frozen=True, slots=True)
class RateHeaders:
    """One resource's ``x-ratelimit-{limit,remaining,reset}-{requests,tokens}`` values; None where not sent."""

    limit: int | None
    remaining: int | None
    reset: str | None
    """A duration (parse_duration reads it): parsed only when needed, after a 429."""

    @classmethod
    def read(cls, headers: Mapping[str, str], resource: str) -> RateHeaders | None:
        """Headers must have lower-case keys (the transports lower-case them). None when none of the three is sent."""
        limit = headers.get(f"x-ratelimit-limit-{resource}")
        remaining = headers.get(f"x-ratelimit-remaining-{resource}")
        reset = headers.get(f"x-ratelimit-reset-{resource}")
        if limit is None and remaining is None and reset is None:
            return None
        return cls(_int(limit), _int(remaining), reset)


def _int(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return max(0, int(float(text)))
    except ValueError:
        return None


class Mark(NamedTuple):
    """A request's admission, for reconciling it later."""

    at: float
    expired_tokens: float
    """Our minute windows' ``expired`` then (what a sliding window has freed of ours since is read against it)."""
    expired_requests: float
    tokens: float
    """Tokens the endpoint had admitted by then, this request's included (and ``requests`` likewise)."""
    requests: int
    tpm: TokenBucket | None
    """The buckets that reserved it (None while the limit was unknown)."""
    rpm: TokenBucket | None


class Budgets:
    """The RPM and TPM buckets of one endpoint: configured, or learned from the provider's headers. While the
    provider reports what is left (``x-ratelimit-remaining-*``), its reports pace a learned budget, up and down
    (``ReportedLevel``); a configured one stays a cap of our own as well."""

    __slots__ = ("_configured", "endpoint", "log", "reported_requests", "reported_tokens", "requests_taken",
                 "requests_window", "rpm", "started", "tokens_taken", "tokens_window", "tpm",
                 "utilization")  # fmt: skip

    def __init__(
        self, endpoint: str, tpm: int | None, rpm: int | None, utilization: float, now: float, log: DecisionLog
    ) -> None:
        self.endpoint, self.utilization, self.log = endpoint, utilization, log
        self._configured = {"tokens": tpm is not None, "requests": rpm is not None}
        self.tpm = TokenBucket(tpm, utilization, now) if tpm else None
        self.rpm = TokenBucket(rpm, utilization, now) if rpm else None
        self.tokens_taken = 0.0
        self.requests_taken = 0
        self.started: float | None = None
        """When the first request was admitted."""
        self.tokens_window, self.requests_window = MinuteWindow(), MinuteWindow()
        self.reported_tokens: ReportedLevel | None = None
        self.reported_requests: ReportedLevel | None = None

    def wait(self, tokens: int, now: float) -> tuple[float, str]:
        """Seconds until one request of ``tokens`` fits both budgets, and the one it waits for."""
        wait_r = wait_t = 0.0
        if (rpm := self.rpm) is not None:
            wait_r = self._wait(1, rpm, self.reported_requests, self.requests_window, "requests", now)
        if (tpm := self.tpm) is not None:
            wait_t = self._wait(tokens, tpm, self.reported_tokens, self.tokens_window, "tokens", now)
        return (wait_t, "tpm") if wait_t >= wait_r else (wait_r, "rpm")

    def _wait(
        self, amount: int, bucket: TokenBucket, reported: ReportedLevel | None, window: MinuteWindow, resource: str,
        now: float,
    ) -> float:  # fmt: skip
        if reported is None or not reported.fresh(now):
            return max(bucket.wait_s(amount, now), window.wait_s(amount, bucket.capacity, now))
        wait = reported.wait_s(min(amount, bucket.capacity), window, now)
        return max(wait, bucket.wait_s(amount, now)) if self._configured[resource] else wait

    def level(self, resource: str, now: float) -> float:
        """What the budget lets go now (0: none known), as the provider's fresh report or our bucket says."""
        bucket, reported, window = (
            (self.tpm, self.reported_tokens, self.tokens_window)
            if resource == "tokens"
            else (self.rpm, self.reported_requests, self.requests_window)
        )
        if bucket is None:
            return 0.0
        if reported is None or not reported.fresh(now):
            return bucket.refill(now)
        level = reported.available(window, now)
        return min(level, bucket.refill(now)) if self._configured[resource] else level

    def take(self, tokens: int, now: float) -> Mark:
        """Spend one request and ``tokens``."""
        if self.started is None:
            self.started = now
        self.tokens_taken += tokens
        self.requests_taken += 1
        self.tokens_window.add(tokens, now, now)
        self.requests_window.add(1, now, now)
        if self.rpm is not None:
            self.rpm.take(1, now)
        if self.reported_requests is not None:
            self.reported_requests.take(1)
        if self.reported_tokens is not None:
            self.reported_tokens.take(tokens)
        if self.tpm is not None:
            if tokens > self.tpm.capacity:
                # It waited for a full bucket: going into debt is the only way it ever runs; later ones repay it.
                self.log.event("oversize", endpoint=self.endpoint, tokens=tokens, capacity=round(self.tpm.capacity))
            self.tpm.take(tokens, now)
        return Mark(
            now, self.tokens_window.expired, self.requests_window.expired, self.tokens_taken, self.requests_taken,
            self.tpm, self.rpm,
        )  # fmt: skip

    @property
    def paced(self) -> bool:
        """Whether a known budget keeps requests under the provider's limits."""
        return self.tpm is not None or self.rpm is not None

    def give(self, tokens: int, requests: int, mark: Mark, now: float) -> None:
        """Return unused tokens (negative: usage beyond the reservation) and unsent requests of a request
        admitted at ``mark``."""
        if tokens:
            self.tokens_window.add(-tokens, mark.at, now)
            if mark.tpm is not None:
                mark.tpm.give(tokens, now)
            if self.reported_tokens is not None and self.tpm is not None:
                self.reported_tokens.give(tokens, mark.requests)
        if requests:
            self.requests_window.add(-requests, mark.at, now)
            if mark.rpm is not None:
                mark.rpm.give(requests, now)
            if self.reported_requests is not None and self.rpm is not None:
                self.reported_requests.give(requests, mark.requests)

    def observe(self, headers: Mapping[str, str], mark: Mark, now: float) -> None:
        """Learn limits the run did not configure, and lower our levels where the provider reports less left than
        we think (it counts differently). ``mark``: when the request these headers answer was admitted."""
        if headers:
            # The provider counted up to about this request's admission. What it has freed since: a token bucket
            # refills continuously, but a sliding window frees nothing until a minute after our first request.
            freed_s = max(0.0, now - max(mark.at, (now if self.started is None else self.started) + 60.0))
            since_t, since_r = self.tokens_taken - mark.tokens, self.requests_taken - mark.requests
            seen_t, seen_r = RateHeaders.read(headers, "tokens"), RateHeaders.read(headers, "requests")
            self.tpm = self._observe("tokens", self.tpm, seen_t, freed_s, since_t, now)
            self.rpm = self._observe("requests", self.rpm, seen_r, freed_s, since_r, now)
            self.reported_tokens = self._report(self.tpm, self.reported_tokens, seen_t, since_t, mark, now)
            self.reported_requests = self._report(self.rpm, self.reported_requests, seen_r, since_r, mark, now)

    def _report(
        self,
        bucket: TokenBucket | None,
        reported: ReportedLevel | None,
        seen: RateHeaders | None,
        since: float,
        mark: Mark,
        now: float,
    ) -> ReportedLevel | None:
        """The provider's report of what is left, the newest one, with the margin we keep below its limit."""
        if bucket is None or seen is None or seen.remaining is None:
            return reported
        limit = seen.limit or bucket.per_minute  # the provider's own, where it says
        if reported is None or reported.limit != limit:  # new, or the limit changed
            reported = ReportedLevel(limit, limit * (1.0 - self.utilization))
        expired = mark.expired_tokens if bucket is self.tpm else mark.expired_requests
        reported.observe(seen.remaining, parse_duration(seen.reset), since, mark.requests, mark.at, expired)
        return reported

    def _observe(
        self,
        resource: str,
        bucket: TokenBucket | None,
        seen: RateHeaders | None,
        freed_s: float,
        since: float,
        now: float,
    ) -> TokenBucket | None:
        if seen is None:
            return bucket
        learned = seen.limit if seen.limit and not self._configured[resource] else None
        new = bucket is None
        if learned and (bucket is None or learned != bucket.per_minute):
            self.log.event("limit_learned", endpoint=self.endpoint, resource=resource, per_minute=learned)
            if bucket is None:
                # Full, then lowered to what the provider reports left. It refills only from a minute after our
                # first request: what we sent before we knew the limit may sit in a sliding window until then.
                refills_from = max(now, (now if self.started is None else self.started) + 60.0)
                bucket = TokenBucket(
                    learned, self.utilization, refills_from, None if seen.remaining is None else math.inf
                )
            else:
                bucket.set_limit(learned)
        if bucket is None or seen.remaining is None:
            return bucket
        # What is left now: what it reported, plus what it freed since, less what we admitted after this request
        # (``since``: not counted yet), less the margin we keep below its limit.
        left = seen.remaining + (freed_s - 60.0 * (1.0 - self.utilization)) * bucket.per_minute / 60.0 - since
        if (cut := bucket.lower_to(left, now)) > 0.1 * bucket.capacity and not new:
            self.log.event("bucket_corrected", endpoint=self.endpoint, resource=resource, cut=round(cut))
        return bucket

    def spent(self, tokens: int, headers: Mapping[str, str]) -> bool:
        """Whether the headers report less left than one request of ``tokens`` needs."""
        for resource, need in (("tokens", tokens), ("requests", 1)):
            seen = RateHeaders.read(headers, resource)
            if seen is not None and seen.remaining is not None and seen.remaining < need:
                return True
        return False

    def refused(self, mark: Mark) -> None:
        """A 429 for a request admitted at ``mark``. If a report read as a token bucket's let it go, the provider
        frees slower than one (a window whose reset times read like a bucket's): from now on, assume no more than
        what of ours has left the minute window."""
        for reported in (self.reported_tokens, self.reported_requests):
            if (
                reported is not None
                and reported.frees == "bucket"
                and reported.seq < mark.requests
                and reported.fresh(mark.at)
            ):
                reported.frees = "window"
                self.log.event("frees_like_a_window", endpoint=self.endpoint)

    def retry_wait(self, tokens: int, headers: Mapping[str, str], now: float) -> float:
        """After a 429 without Retry-After: how long until what the provider says is exhausted is back (0: unknown).
        A known bucket answers from its level (just lowered to what the headers report left); otherwise the reset."""
        wait = self.wait(tokens, now)[0]
        for resource, bucket, need in (("requests", self.rpm, 1), ("tokens", self.tpm, tokens)):
            seen = RateHeaders.read(headers, resource) if bucket is None else None
            if seen is not None and seen.remaining is not None and seen.remaining < need:
                wait = max(wait, parse_duration(seen.reset) or 0.0)
        return wait
