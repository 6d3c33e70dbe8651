"""What judges derive from a task's goals or a world's tool specs alone, kept across the episodes that share them.

A run hands every trial of a task the same ``Goal`` objects, and every episode of a world the same ``ToolSpec``s: the
toolkit's tables by name and a goal's paths are then the same for each episode, and were rebuilt by every one. They
are kept here by the objects' identity, with the objects (an id cannot be reused while its object is kept), a bounded
number of them, oldest out first: a run's goals many times over, and a few toolkits (a large world's specs weigh
hundreds of KB; a stressor that rewrites specs gives each episode its own). A stored trace parsed afresh (``squall
score``) has objects of its own: its views are built for it, as before, and soon let go.

Kept values are shared by every judge and episode that asks: read them, never change them. The objects they are
derived from are frozen models, which nothing changes once built (a stressor's rewrite is a new task or spec).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from contextlib import suppress
from typing import Any, TypeVar

T = TypeVar("T")


class _Kept:
    """Values by key, each with the objects its key names, at most ``limit`` of them (oldest out first)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.values: dict[Hashable, tuple[object, Any]] = {}

    def keep(self, key: Hashable, holder: object, value: T) -> T:
        values = self.values
        if len(values) >= self.limit:
            # Judges may run on the loop and in the judge thread: another may have taken this one out already.
            with suppress(KeyError, RuntimeError, StopIteration):
                del values[next(iter(values))]
        values[key] = (holder, value)
        return value


_GOALS = _Kept(4096)
_TOOLKITS = _Kept(32)


def of_object(obj: object, kind: str, compute: Callable[[], T]) -> T:
    """``compute()``, once for ``obj`` (by identity: a goal, a path) while it is kept."""
    key = (id(obj), kind)
    found = _GOALS.values.get(key)
    if found is not None and found[0] is obj:
        value: T = found[1]
        return value
    return _GOALS.keep(key, obj, compute())


def of_toolkit(specs: Sequence[object], kind: str, compute: Callable[[], T]) -> T:
    """``compute()``, once for this sequence of spec objects (each by identity: the list itself is the episode's)."""
    key = (tuple(map(id, specs)), kind)
    found = _TOOLKITS.values.get(key)
    if found is not None:  # the specs are kept with it: their ids are still theirs
        value: T = found[1]
        return value
    return _TOOLKITS.keep(key, tuple(specs), compute())
