"""Request and token rate limits, as token buckets or sliding windows, with OpenAI's x-ratelimit-* headers and exact
429 waits."""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from sim.mockllm.config import RateLimit

LimitReason = Literal["requests", "tokens", "too_large"]

# Float dust from refilling must not turn "exactly enough after the advertised wait" into a second 429.
_EPSILON = 1e-9


def go_duration(seconds: float) -> str:
    """A wait the way OpenAI's x-ratelimit-reset-* headers write it (Go durations): 120ms, 8.64s, 6m0s, 1h0m0s.

    Rounded up to the millisecond, so a client waiting that long finds the capacity there.
    """
    ms = math.ceil(seconds * 1000 - _EPSILON) if seconds > 0 else 0
    if ms == 0:
        return "0s"
    if ms < 1000:
        return f"{ms}ms"
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    secs = f"{rest / 1000:.3f}".rstrip("0").rstrip(".") + "s"
    if hours:
        return f"{hours}h{minutes}m{secs}"
    return f"{minutes}m{secs}" if minutes else secs


@dataclass
class Bucket:
    """Holds up to `limit` units, refilled continuously at limit/window_s; starts full."""

    limit: int
    window_s: float
    last: float  # clock time of the last refill
    level: float = field(init=False)
    rate: float = field(init=False)

    def __post_init__(self) -> None:
        self.level = float(self.limit)
        self.rate = self.limit / self.window_s

    def refill(self, now: float) -> None:
        self.level = min(float(self.limit), self.level + (now - self.last) * self.rate)
        self.last = now

    def wait_s(self, cost: int) -> float:
        """Seconds until the bucket holds `cost` (0 if it does now)."""
        missing = cost - self.level - _EPSILON
        return missing / self.rate if missing > 0 else 0.0

    def take(self, cost: int) -> None:
        self.level -= cost

    def headers(self, kind: str) -> dict[str, str]:
        return {
            f"x-ratelimit-limit-{kind}": str(self.limit),
            f"x-ratelimit-remaining-{kind}": str(max(0, math.floor(self.level + _EPSILON))),
            f"x-ratelimit-reset-{kind}": go_duration((self.limit - self.level) / self.rate),
        }


class SlidingWindow:
    """Admits at most `limit` units over any `window_s`: each charge counts until `window_s` after it was made, then
    frees at once. Nothing refills meanwhile, so a burst that spends the limit waits out the whole window (a token
    bucket would let it go on at limit/window_s from the start)."""

    def __init__(self, limit: int, window_s: float, now: float) -> None:
        self.limit, self.window_s, self.last = limit, window_s, now
        self.charges: deque[tuple[float, int]] = deque()  # (when, cost), oldest first
        self.used = 0

    @property
    def level(self) -> float:
        return float(self.limit - self.used)

    def refill(self, now: float) -> None:
        """Free the charges older than the window."""
        self.last = now
        charges = self.charges
        while charges and charges[0][0] <= now - self.window_s:
            self.used -= charges.popleft()[1]

    def wait_s(self, cost: int) -> float:
        """Seconds until the charges that must leave for `cost` to fit have left (0 if it fits now)."""
        excess = self.used + cost - self.limit
        if excess <= 0:
            return 0.0
        for when, charged in self.charges:
            excess -= charged
            if excess <= 0:
                return max(0.0, when + self.window_s - self.last)
        return self.window_s  # cannot happen for cost <= limit: every charge leaves within a window

    def take(self, cost: int) -> None:
        self.charges.append((self.last, cost))
        self.used += cost

    def headers(self, kind: str) -> dict[str, str]:
        # Reset: when the window is back to its whole limit (its newest charge leaves), as OpenAI defines it.
        reset = self.charges[-1][0] + self.window_s - self.last if self.charges else 0.0
        return {
            f"x-ratelimit-limit-{kind}": str(self.limit),
            f"x-ratelimit-remaining-{kind}": str(max(0, self.limit - self.used)),
            f"x-ratelimit-reset-{kind}": go_duration(reset),
        }


Limit = Bucket | SlidingWindow


@dataclass(frozen=True)
class Decision:
    """The limiter's answer: admitted, or the reason and the seconds until it would be (None: never)."""

    admitted: bool
    reason: LimitReason | None = None
    wait_s: float | None = None
    message: str = ""


class RateLimiter:
    """Admits a request only if both limits hold its cost (1 request; its tokens), then charges both.

    A rejected request is charged nothing. Token buckets start full, so a whole window's limit may come at once; over
    a run of T seconds at most limit × (1 + T / window_s) is admitted. A sliding window admits at most the limit in
    any window: limit × ceil(T / window_s) over T seconds.
    """

    def __init__(self, config: RateLimit, model: str = "mock-model", clock: Callable[[], float] = time.monotonic):
        self.config = config
        self._model = model
        self._clock = clock
        now = clock()
        kind = SlidingWindow if config.algorithm == "sliding_window" else Bucket
        self._requests: Limit | None = kind(config.rpm, config.window_s, now) if config.rpm else None
        self._tokens: Limit | None = kind(config.tpm, config.window_s, now) if config.tpm else None

    def acquire(self, tokens: int) -> Decision:
        """Admit and charge a request costing `tokens`, or say why not and for how long."""
        now = self._clock()
        waits: list[tuple[float, LimitReason, Limit, int]] = []
        if self._requests is not None:
            self._requests.refill(now)
            waits.append((self._requests.wait_s(1), "requests", self._requests, 1))
        if self._tokens is not None:
            if tokens > self._tokens.limit:
                return Decision(False, "too_large", None, self._too_large(tokens))
            self._tokens.refill(now)
            waits.append((self._tokens.wait_s(tokens), "tokens", self._tokens, tokens))
        wait, reason, bucket, cost = max(waits, key=lambda w: w[0])
        if wait > 0:
            return Decision(False, reason, wait, self._exceeded(reason, bucket, cost, wait))
        for _, _, b, c in waits:
            b.take(c)
        return Decision(True)

    def headers(self) -> dict[str, str]:
        """x-ratelimit-* for each configured limit as of now (empty when send_headers is off)."""
        if not self.config.send_headers:
            return {}
        now = self._clock()
        headers: dict[str, str] = {}
        for kind, bucket in (("requests", self._requests), ("tokens", self._tokens)):
            if bucket is not None:
                bucket.refill(now)
                headers |= bucket.headers(kind)
        return headers

    def _per(self) -> str:
        return "min" if self.config.window_s == 60 else f"{self.config.window_s:g}s"

    def _exceeded(self, reason: LimitReason, bucket: Limit, cost: int, wait: float) -> str:
        abbr = "RPM" if reason == "requests" else "TPM"
        used = bucket.limit - math.floor(bucket.level + _EPSILON)
        return (
            f"Rate limit reached for {self._model} on {reason} per {self._per()} ({abbr}): Limit {bucket.limit}, "
            f"Used {used}, Requested {cost}. Please try again in {go_duration(wait)}."
        )

    def _too_large(self, tokens: int) -> str:
        return (
            f"Request too large for {self._model} on tokens per {self._per()} (TPM): Limit {self.config.tpm}, "
            f"Requested {tokens}. The input or output tokens must be reduced in order to run successfully."
        )
