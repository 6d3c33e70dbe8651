"""A running sum of ``Usage`` values, kept as plain numbers and read as a ``Usage``.

The gateway adds every request's usage to four sums (the episode's, its role's, the turn's, the run's); ``Usage``
is an immutable value, so summing with ``+`` built four of them per request. A tally adds in place and builds the
value only when read, with the same numbers ``+`` gives: the same additions in the same order.
"""

from __future__ import annotations

from sim.core import Usage
from sim.core.trusted import trusted


class UsageTally:
    """``Usage()`` plus every usage added, in order. ``start``: begin from that value instead (``start + u + ...``,
    the way a sum that opens with its first value reads)."""

    __slots__ = ("cached", "cached_input_tokens", "cost", "input_tokens", "output_tokens", "reasoning_tokens",
                 "requests", "retries", "truncated", "waiting_s", "working_s")  # fmt: skip

    def __init__(self, start: Usage | None = None) -> None:
        if start is None:
            self.requests = self.input_tokens = self.output_tokens = self.retries = self.cached = 0
            self.cached_input_tokens = self.reasoning_tokens = self.truncated = 0
            self.cost = self.working_s = self.waiting_s = 0.0
        else:
            s = start
            self.requests, self.input_tokens, self.output_tokens = s.requests, s.input_tokens, s.output_tokens
            self.cost, self.retries, self.cached, self.working_s, self.waiting_s = (
                s.cost, s.retries, s.cached, s.working_s, s.waiting_s
            )  # fmt: skip
            self.cached_input_tokens, self.reasoning_tokens, self.truncated = (
                s.cached_input_tokens, s.reasoning_tokens, s.truncated
            )  # fmt: skip

    def add(self, usage: Usage) -> None:
        self.requests += usage.requests
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        self.cost += usage.cost
        self.retries += usage.retries
        self.cached += usage.cached
        self.working_s += usage.working_s
        self.waiting_s += usage.waiting_s
        self.cached_input_tokens += usage.cached_input_tokens
        self.reasoning_tokens += usage.reasoning_tokens
        self.truncated += usage.truncated

    def value(self) -> Usage:
        """The sum as a value (every field set, as a sum built with ``+`` has them)."""
        return trusted(
            Usage,
            {"requests": self.requests, "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
             "cost": self.cost, "retries": self.retries, "cached": self.cached, "working_s": self.working_s,
             "waiting_s": self.waiting_s, "cached_input_tokens": self.cached_input_tokens,
             "reasoning_tokens": self.reasoning_tokens, "truncated": self.truncated},
        )  # fmt: skip
