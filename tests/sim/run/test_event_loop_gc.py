"""A run's collector settings are its own: tuned while it runs, the caller's afterwards."""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest

from sim.run import event_loop
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


def test_a_settled_run_freezes_what_lives_on_and_still_frees_young_cycles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sim.run.event_loop.REFREEZE_EVERY_S", 0.01)

    class Node:
        def __init__(self) -> None:
            self.other: Node | None = None

    async def inside() -> tuple[int, bool]:
        settled()
        dead = Node()
        dead.other = Node()
        dead.other.other = dead  # a cycle that is garbage before the next refreeze
        probe = weakref.ref(dead)
        del dead
        after_settle = gc.get_freeze_count()
        in_flight = [[i] for i in range(5000)]  # an episode's objects, alive across refreezes
        await asyncio.sleep(0.1)
        return gc.get_freeze_count() - after_settle - len(in_flight), probe() is None

    grown, freed = run(inside())
    assert grown > 0  # what stayed alive was frozen: no pass walks it again
    assert freed  # the young collection before each freeze still freed the dead cycle
    assert gc.get_freeze_count() == 0  # and the caller's collector is back


def test_the_refreeze_timer_ends_with_the_run() -> None:
    async def inside() -> None:
        settled()
        settled()  # a second settled() (the driver, then a worker) keeps one timer

    run(inside())
    assert event_loop._refreezing is None
