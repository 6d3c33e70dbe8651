"""The episode's event record and its clock: every event of an episode goes through one recorder, in order."""

from __future__ import annotations

import time
from collections.abc import Callable

from sim.core import Event


class EventRecorder:
    """Appends events in the order they happen and shows each to a watcher (``squall chat``), if any."""

    def __init__(self, watch: Callable[[Event], None] | None = None) -> None:
        self.events: list[Event] = []
        self._start = time.monotonic()
        self._watch = watch

    def clock(self) -> float:
        """Seconds since the episode started."""
        return round(time.monotonic() - self._start, 4)

    def add(self, event: Event) -> None:
        self.events.append(event)
        if self._watch is not None:
            self._watch(event)
