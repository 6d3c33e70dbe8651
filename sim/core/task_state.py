"""World state as the state judge compares it: flat ``path -> value`` mappings, and their differences.

A world that can be state-judged has ``task_state() -> dict[str, Any]``: what the task is about, flat, as changes
from the world's base data (the same for every world of its pack and seed). Paths name an entity and a field
(``devices/lamp-1.brightness``, ``orders/o-7.status``); ``ABSENT`` marks a path the base has that is gone (a deleted
row); a path not listed is as at the base (``at``, ``moved``). Bookkeeping (clocks, logs, ids the session has seen,
counters) is left out, so two call sequences that leave the world alike compare alike however they got there — reads
never count. Worlds without the method (read-only SQL worlds; ``TaskStateWorld`` tells) are not state-judged.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

ABSENT = "<absent>"
"""The value of a path that does not exist in a state (JSON-safe, so it survives the trace)."""


def task_state(world: object) -> dict[str, Any] | None:
    """The world's flat task state, or None when the world offers none (``protocols.TaskStateWorld``)."""
    # What isinstance(world, TaskStateWorld) decides, without a runtime Protocol check's cost (it walks the
    # protocol's attributes on every call: a visible share of the CPU per tool call, once per step).
    method = getattr(world, "task_state", None)
    return dict(method()) if callable(method) else None


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Nested JSON as flat paths: a dict's keys join with ``.``, a list of objects with ``id`` by ``/id``; any
    other list is one value (its order is part of it)."""
    if isinstance(value, Mapping):
        flat: dict[str, Any] = {}
        for key, item in value.items():
            flat.update(flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    if isinstance(value, list) and value and all(isinstance(v, Mapping) and "id" in v for v in value):
        flat = {}
        for item in value:
            flat.update(flatten({k: v for k, v in item.items() if k != "id"}, f"{prefix}/{item['id']}"))
        return flat
    return {prefix: value}


def changed(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """Between two whole states (a path not listed does not exist): the paths whose value differs from ``before``
    to ``after`` (numbers compared by value), with the new value (``ABSENT`` for one that is gone)."""
    out: dict[str, Any] = {}
    for path in before.keys() | after.keys():
        new = after.get(path, ABSENT)
        if not same(before.get(path, ABSENT), new):
            out[path] = new
    return out


class _AsAtBase:
    """The value of a path a changes-from-base state does not list: whatever the base holds there."""

    def __repr__(self) -> str:
        return "<as at base>"


AS_AT_BASE: Any = _AsAtBase()


def at(state: Mapping[str, Any], path: str) -> Any:
    """A path's value in a changes-from-base state (``AS_AT_BASE`` when it is not listed: not ``ABSENT``, which
    says the base's row or field is gone)."""
    return state.get(path, AS_AT_BASE)


def moved(before: Mapping[str, Any], after: Mapping[str, Any]) -> set[str]:
    """The paths whose value differs between two changes-from-base states of one world."""
    return {p for p in before.keys() | after.keys() if not same(at(before, p), at(after, p))}


_EXACT: frozenset[type] = frozenset({str, int, bool, type(None)})
"""Types whose values are the same state exactly when they are equal (a float is not: nan is the same as nan)."""


def same(a: Any, b: Any) -> bool:
    """Equal as state: 25 and 25.0 are one number (a bool is never a number); containers compare item by item."""
    if a is AS_AT_BASE or b is AS_AT_BASE:
        return a is b  # what the canonical forms would say (the marker is only itself), without building them
    kind = type(a)
    if kind is type(b):
        if kind in _EXACT:
            return bool(a == b)  # what the canonical forms would say, without building them
        if _alike(a, b):
            return True  # the common case, without building canonical forms
    return canonical(a) == canonical(b)


def _alike(a: Any, b: Any) -> bool:
    """True only where the canonical forms are equal: the same JSON shape (string keys), leaves of one plain type
    each and equal. False: not sure (``same`` then builds the forms)."""
    kind = type(a)
    if kind is not type(b):
        return False
    if kind in _EXACT or kind is float:
        return bool(a == b)
    if kind is list or kind is tuple:
        return len(a) == len(b) and all(_alike(x, y) for x, y in zip(a, b, strict=True))
    if kind is dict:
        return a.keys() == b.keys() and all(type(k) is str and _alike(v, b[k]) for k, v in a.items())
    return False


def canonical(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        try:
            return ("n", Decimal(str(value)).normalize())
        except InvalidOperation:  # nan, inf: compared as written
            return ("n", str(value))
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), canonical(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(canonical(v) for v in value)
    return value
