"""WaitClock counts the time inside ``waiting()`` once, however deeply nested, and however the block ends."""

from __future__ import annotations

import time

import pytest

from sim.episode.deadline import WaitClock


def test_nested_waits_count_once_and_an_exception_still_ends_the_wait() -> None:
    clock = WaitClock()
    with clock.waiting():
        time.sleep(0.01)
        with clock.waiting():  # nested: the outer wait already counts this time
            time.sleep(0.01)
        assert clock.total() >= 0.02
    waited = clock.total()
    assert waited >= 0.02
    time.sleep(0.01)
    assert clock.total() == waited  # not waiting now: the total stands still
    with pytest.raises(RuntimeError), clock.waiting():
        raise RuntimeError("provider")
    assert clock.total() >= waited and clock._depth == 0
    first = clock.total()
    with clock.waiting():
        time.sleep(0.01)
    assert clock.total() >= first + 0.01
