"""Fault injection: which request goes wrong, decided by ordinal rules and one seeded draw per request."""

from __future__ import annotations

import random

from sim.mockllm.config import FaultRule


class FaultInjector:
    """Picks the fault rule for a 1-based request ordinal: rules are checked in order and the first match wins.

    Probability rules own consecutive, disjoint slices of [0, 1) (in list order), and each request draws one
    uniform number: rules of 5%, 5%, 2%, 2% fault exactly those shares of requests, not conditional ones. An
    `at`/`every` rule listed before them takes its requests first; probability rules apply to the rest.
    """

    def __init__(self, rules: list[FaultRule], seed: int) -> None:
        self._rng = random.Random(seed)
        self._rules: list[tuple[FaultRule, frozenset[int], float, float]] = []
        low = 0.0
        for rule in rules:
            p = rule.probability or 0.0
            self._rules.append((rule, frozenset(rule.at), low, low + p))
            low += p

    def match(self, ordinal: int) -> FaultRule | None:
        # Exactly one draw per request, matched or not, so the sequence of draws depends only on the request count.
        draw = self._rng.random()
        for rule, at, low, high in self._rules:
            if ordinal in at or (rule.every is not None and ordinal % rule.every == 0) or low <= draw < high:
                return rule
        return None
