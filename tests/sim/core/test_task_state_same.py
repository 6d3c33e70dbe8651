"""``same`` decides plain values without canonical forms, and says what comparing canonical forms says."""

from __future__ import annotations

import itertools
import math

from sim.core.task_state import canonical, same

VALUES: list[object] = [
    None, True, False, 0, 1, 25, -3, 0.0, -0.0, 1.0, 25.0, 2.5, math.nan, math.inf, "", "25", "on", "<absent>",
    [], [1], (1,), [1.0], [True], ["a", 1], ("a", 1), [[1, 2.5]], [[1, 2.5000]], {"a": 1}, {"a": 1.0}, {"a": True},
    {"a": [1, "x"]}, {"a": [1.0, "x"]}, {1: "x"}, {"1": "x"}, {True: "x"}, {"a": {"b": None}}, {"a": {"b": math.nan}},
    [math.nan], [-0.0], [0.0],
]  # fmt: skip


def test_same_is_equality_of_canonical_forms() -> None:
    for a, b in itertools.product(VALUES, repeat=2):
        assert same(a, b) == (canonical(a) == canonical(b)), (a, b)
