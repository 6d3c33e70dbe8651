"""``run``: ``asyncio.run`` on uvloop where it is installed (the ``fast`` extra), the stock loop otherwise, with the
cyclic garbage collector set for a long run of many small objects.

Why uvloop: at hundreds of episodes in flight the loop's own socket and callback handling is a visible share of the
harness's CPU per request; uvloop does the same work in C. ``SQUALL_UVLOOP=0`` keeps the stock loop (to compare,
or to rule uvloop out when a run misbehaves).

Why the collector: an episode allocates thousands of small containers (events, messages, pydantic models), so the
default thresholds (a young collection every 700 allocations, a full one every 100 young ones) ran ~500 young and
4 full collections per 400 episodes, each full one walking every module, class and function imported at start-up:
measured at 100 episodes in flight, ~15% of the run's CPU. Start-up's objects live as long as the process, so they
are frozen out of the collector's walks, and young collections come every 20,000 allocations. Garbage without
cycles (nearly all of it) is freed by reference counting as before; cycles wait a little longer.

An episode itself makes no reference cycle (``tests/sim/run/test_episodes_free_by_refcount.py``): it is freed the
moment it is stored, so young collections walk only what is in flight. When every finished episode was left in a
cycle (a closure over the runtime that stored it), the collector's passes took ~9% of a run's CPU at 100 in flight
(the freeing included) and resident memory grew ~80 KB per episode (90 -> 152 MB over 800).

What is in flight is walked again and again, though: at 10,000 episodes in flight (~1.8 GB of live objects, each
living seconds to minutes) the middle generation's passes walked every episode in flight and freed nothing, and the
full passes walk the whole heap; a 10-minute run stalled 6-10 s four times (0.944 of the steady bound), and
the collector took 22% of the run's CPU in a loaded side-by-side. So once a run is settled, every
``REFREEZE_EVERY_S`` the young generations are collected (a cycle that is already garbage is freed) and whatever
survived is frozen: it is freed by reference counting when its episode ends, and no pass walks it again (0.993 of
the bound and no stall over 10 quiet minutes; the collections took 91 of that run's 664 CPU s,
docs/measurements.md). The cost: a cycle that becomes garbage after it was frozen stays until the process ends;
episodes make none (tested above).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar

T = TypeVar("T")


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop factory, or None (the stock loop) when it is missing or turned off."""
    if os.environ.get("SQUALL_UVLOOP", "1") == "0":
        return None
    try:
        import uvloop
    except ImportError:
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


GC_THRESHOLDS = (20_000, 20, 20)
_tuned = False
_refreezing: asyncio.TimerHandle | None = None


@contextlib.contextmanager
def long_run_gc() -> Iterator[None]:
    """The collector tuned for the run (see above); the previous settings come back after it."""
    global _tuned
    before, was_tuned = gc.get_threshold(), _tuned
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    _tuned = True
    try:
        yield
    finally:
        if not was_tuned:  # the outermost run owns the timer
            _stop_refreezing()
        _tuned = was_tuned
        gc.set_threshold(*before)
        gc.unfreeze()


REFREEZE_EVERY_S = 2.0
"""How often a settled run freezes what survived its young collections: at 10,000 in flight a pass over 2 s of
survivors took 0.26 s of CPU (a longer period walks more per pass, about as much per second)."""


def settled() -> None:
    """The run is set up (world loaded, plan built, sessions open): freeze what it built too — it lives as long as
    the run — and from now on what is in flight, every ``REFREEZE_EVERY_S`` (see above). Only inside ``run`` (a
    caller of ``drive`` on its own loop keeps its collector as it is)."""
    global _refreezing
    if _tuned:
        gc.freeze()
        if _refreezing is None:  # a second settled() in the same run (the driver, then a worker) keeps one timer
            _refreezing = asyncio.get_running_loop().call_later(REFREEZE_EVERY_S, _refreeze)


def _refreeze() -> None:
    global _refreezing
    gc.collect(1)
    gc.freeze()
    _refreezing = asyncio.get_running_loop().call_later(REFREEZE_EVERY_S, _refreeze)


def _stop_refreezing() -> None:
    global _refreezing
    if _refreezing is not None:
        _refreezing.cancel()
        _refreezing = None


def run(main: Coroutine[Any, Any, T]) -> T:
    with long_run_gc(), asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(main)
