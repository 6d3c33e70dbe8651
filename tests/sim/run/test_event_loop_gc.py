"""A run's collector settings are its own: tuned while it runs, the caller's afterwards."""

from __future__ import annotations

import gc

from sim.run.event_loop import GC_THRESHOLDS, run, settled


def test_the_collector_is_tuned_during_a_run_and_restored_after() -> None:
    before = gc.get_threshold()

    async def inside() -> tuple[tuple[int, int, int], int]:
        return gc.get_threshold(), gc.get_freeze_count()

    thresholds, frozen = run(inside())
    assert thresholds == GC_THRESHOLDS and frozen > 0  # start-up's objects are out of the collector's walks
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_what_the_run_set_up_is_frozen_only_inside_a_run() -> None:
    settled()  # outside a run: the caller's collector is left alone
    assert gc.get_freeze_count() == 0

    async def inside() -> tuple[int, int]:
        frozen = gc.get_freeze_count()
        built = [[i] for i in range(1000)]  # what a run builds before its episodes (the world, the plan)
        settled()
        return frozen, gc.get_freeze_count() - len(built)

    before, after = run(inside())
    assert after > before and gc.get_freeze_count() == 0
