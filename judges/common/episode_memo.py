"""What the judges of one episode share while they judge it: views of the trace (each goal's events, its calls, the
goals played) and verdicts several judges read (core API accuracy's per goal, the argument matcher's per pair),
computed once per episode instead of once per judge.

``judging(result, score_set)`` opens the memo for the length of a ``with`` block (``sim.judging.judge_set.judge``
opens it around a run's judges); ``memo`` then keeps a value under a key for that result. Outside such a block, or for
another result, every value is computed afresh, as before: a judge called on its own (tests, calibration) needs
nothing opened. The memo lives in a context variable, so judge workers interleaving on one event loop (each its own
task) and the judge thread never see each other's.

What is kept is shared by every judge that asks: callers read it, never change it. Keys name their objects, not
their ids: the memo then holds those objects, and no id of theirs can be reused while it lives.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from sim.core import EpisodeResult

T = TypeVar("T")


class EpisodeMemo:
    """The values kept for one result, and the score set its Scores are labelled with."""

    __slots__ = ("result", "score_set", "values")

    def __init__(self, result: EpisodeResult, score_set: str) -> None:
        self.result = result
        self.score_set = score_set
        self.values: dict[Hashable, Any] = {}


_CURRENT: ContextVar[EpisodeMemo | None] = ContextVar("squall_episode_memo", default=None)


@contextmanager
def judging(result: EpisodeResult, score_set: str) -> Iterator[EpisodeMemo]:
    """Share derived views of ``result`` among the judges run inside the block."""
    memo_ = EpisodeMemo(result, score_set)
    token = _CURRENT.set(memo_)
    try:
        yield memo_
    finally:
        _CURRENT.reset(token)


def current(result: EpisodeResult) -> EpisodeMemo | None:
    """The open memo of ``result``; None outside ``judging`` (or inside another result's)."""
    memo_ = _CURRENT.get()
    return memo_ if memo_ is not None and memo_.result is result else None


def open_values() -> dict[Hashable, Any] | None:
    """The open memo's values, whatever its result (for a value keyed by the objects it is computed from)."""
    memo_ = _CURRENT.get()
    return memo_.values if memo_ is not None else None


def memo(result: EpisodeResult, key: Hashable, compute: Callable[[], T]) -> T:
    """``compute()``, once per key while ``result`` is being judged."""
    memo_ = _CURRENT.get()  # ``current``, inlined: a judged episode asks ~100 times
    if memo_ is None or memo_.result is not result:
        return compute()
    values = memo_.values
    try:
        value: T = values[key]
    except KeyError:
        value = values[key] = compute()
    return value
