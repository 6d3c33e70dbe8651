"""``run``: ``asyncio.run`` on uvloop where it is installed (the ``fast`` extra), the stock loop otherwise.

Why: at hundreds of episodes in flight the loop's own socket and callback handling is a visible share of the
harness's CPU per request (aiohttp's client above all); uvloop does the same work in C. ``SQUALL_UVLOOP=0`` keeps
the stock loop (to compare, or to rule uvloop out when a run misbehaves).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Coroutine
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


def run(main: Coroutine[Any, Any, T]) -> T:
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(main)
