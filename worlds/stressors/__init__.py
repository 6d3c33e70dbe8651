"""Stressors: composable, seeded perturbations of what the agent reads, observes and is scored on."""

from __future__ import annotations

from collections.abc import Callable

from sim.core import Stressor
from worlds.stressors.outage import Outage

STRESSORS: dict[str, Callable[[int], Stressor]] = {"outage": Outage}
"""Name -> factory taking the episode seed. Each episode gets fresh instances."""


def build_stressors(names: list[str], seed: int) -> list[Stressor]:
    unknown = [n for n in names if n not in STRESSORS]
    if unknown:
        raise ValueError(f"unknown stressor(s) {unknown}; known: {sorted(STRESSORS)}")
    return [STRESSORS[n](seed + i) for i, n in enumerate(names)]
