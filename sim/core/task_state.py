"""World state as the state judge compares it: flat ``path -> value`` mappings, and their differences.

A world that can be state-judged has ``task_state() -> dict[str, Any]``: what the task is about, flat. Paths name
an entity and a field (``devices/lamp-1.brightness``, ``orders/o-7.status``); ``ABSENT`` marks a path that does
not exist (a deleted row, a field that is gone). Bookkeeping (clocks, logs, ids the session has seen, counters) is
left out, so two call sequences that leave the world alike compare alike however they got there — reads never
count. Worlds without the method (read-only SQL worlds) are not state-judged.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

ABSENT = "<absent>"
"""The value of a path that does not exist in a state (JSON-safe, so it survives the trace)."""


def task_state(world: object) -> dict[str, Any] | None:
    """The world's flat task state, or None when the world does not offer one."""
    method = getattr(world, "task_state", None)
    return None if method is None else dict(method())


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
    """The paths whose value differs from ``before`` to ``after`` (numbers compared by value), with the new value."""
    out: dict[str, Any] = {}
    for path in before.keys() | after.keys():
        new = after.get(path, ABSENT)
        if not same(before.get(path, ABSENT), new):
            out[path] = new
    return out


def same(a: Any, b: Any) -> bool:
    """Equal as state: 25 and 25.0 are one number (a bool is never a number); containers compare item by item."""
    return canonical(a) == canonical(b)


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
