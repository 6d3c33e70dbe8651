"""A run's collector settings are its own: tuned while it runs, the caller's afterwards."""

from __future__ import annotations

import gc

from sim.run.event_loop import GC_THRESHOLDS, run


def test_the_collector_is_tuned_during_a_run_and_restored_after() -> None:
    before = gc.get_threshold()

    async def inside() -> tuple[tuple[int, int, int], int]:
        return gc.get_threshold(), gc.get_freeze_count()

    thresholds, frozen = run(inside())
    assert thresholds == GC_THRESHOLDS and frozen > 0  # start-up's objects are out of the collector's walks
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
