"""What the provider last reported left of one budget (``x-ratelimit-remaining-*``), brought forward to now.

A provider's limiter starts full and says so: pacing from its reports spends that burst, where pacing from an empty
bucket of our own would leave it unspent. A report says what was left when the provider admitted the request it
answers; we subtract what we admitted after that request (it has not counted those yet) and a safety margin. Then
what it frees meanwhile depends on its limiter, which it does not name: a token bucket refills at its rate, a
sliding window frees nothing until a minute after each charge. Only what both would have freed is assumed: the
rate's worth, but no more than what of ours has left the minute window since. With answers arriving all the time,
each report carries what the provider really freed, so the level follows it up (a refilling bucket) as well as down
(a spent window). A report older than a minute is stale: the endpoint's bucket and minute window pace alone again.
"""

from __future__ import annotations

import math
from typing import Literal

from sim.llm.admission.token_bucket import MinuteWindow

Frees = Literal["bucket", "window", "unknown"]

STALE_S = 60.0
"""A report older than this is not used: whatever it said, the provider has since freed what it held a minute ago."""


class ReportedLevel:
    """One budget (tokens or requests) as the provider last reported it, less what we took since."""

    __slots__ = ("at", "expired_at", "frees", "limit", "margin", "rate", "remaining", "seq", "used")

    def __init__(self, limit: float, margin: float) -> None:
        self.limit, self.margin, self.rate = limit, margin, limit / 60.0
        self.remaining = 0.0
        """What the provider reported left when it admitted the request of admission ordinal ``seq`` (at ``at``)."""
        self.used = 0.0
        """What we admitted after that request, less what they gave back."""
        self.at = -math.inf
        self.expired_at = 0.0
        """Our minute window's ``expired`` at ``at``."""
        self.seq = -1
        self.frees: Frees = "unknown"
        """How the provider frees its budget, as its reset times show: "bucket" (a token bucket: full again in
        (limit - remaining) / rate), "window" (later than that: a sliding or fixed window, which frees a charge
        only a minute after it), "unknown" (no reset time yet: both are assumed). Once "window", it stays."""

    def fresh(self, now: float) -> bool:
        return now - self.at < STALE_S

    def observe(
        self, remaining: float, reset_s: float | None, since: float, seq: int, at: float, expired: float
    ) -> bool:
        """A report of ``remaining`` (full again in ``reset_s``) in the answer to the request admitted as ``seq`` at
        ``at`` (our window's ``expired`` then); ``since``: what we admitted after it. Ignored (False) when a report
        about a later admission is already in."""
        if seq <= self.seq:
            return False
        self.seq, self.remaining, self.used, self.at, self.expired_at = seq, remaining, since, at, expired
        if reset_s is not None and remaining < self.limit and self.frees != "window":
            # A bucket is full again at its rate; a window that says later frees in chunks, a minute after each charge.
            bucket_s = (self.limit - remaining) / self.rate
            self.frees = "bucket" if reset_s <= bucket_s * 1.05 + 1.0 else "window"
        return True

    def available(self, window: MinuteWindow, now: float) -> float:
        by_rate = self.rate * max(0.0, now - self.at)
        if self.frees == "bucket":
            freed = by_rate
        else:
            freed = window.expired_by(now) - self.expired_at
            if self.frees == "unknown":
                freed = min(freed, by_rate)
        level = self.remaining + freed
        return (level if level < self.limit else self.limit) - self.used - self.margin

    def wait_s(self, amount: float, window: MinuteWindow, now: float) -> float:
        """Seconds until ``amount`` is available, at most until the report goes stale."""
        short = amount - self.available(window, now)
        if short <= 0:
            return 0.0
        stale = self.at + STALE_S - now
        by_rate = short / self.rate if self.rate > 0 else math.inf
        if self.frees == "bucket":
            return min(by_rate, stale)
        by_window = window.expires_in(short, now)
        return min(max(by_rate, by_window) if self.frees == "unknown" else by_window, stale)

    def take(self, amount: float) -> None:
        self.used += amount

    def give(self, amount: float, seq: int) -> None:
        """Return ``amount`` of a request admitted as ``seq`` (negative: it used more than reserved). Only a request
        admitted after the report's: the report already counted the earlier ones as the provider charged them."""
        if seq > self.seq:
            self.used -= amount
