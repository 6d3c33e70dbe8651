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
        _tuned = was_tuned
        gc.set_threshold(*before)
        gc.unfreeze()


def settled() -> None:
    """The run is set up (world loaded, plan built, sessions open): freeze what it built too — it lives as long as
    the run. Only inside ``run`` (a caller of ``drive`` on its own loop keeps its collector as it is)."""
    if _tuned:
        gc.freeze()


def run(main: Coroutine[Any, Any, T]) -> T:
    with long_run_gc(), asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(main)
