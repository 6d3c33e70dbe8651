"""Schemas an imported API's operations share, stored once and referred to as ``#/$defs/NAME``.

operations.json holds each shared schema once (``ApiSpec.schemas``) and each operation's schemas with references
only; on load every operation's argument and response schemas get, as their ``$defs``, the shared schemas they
reach (directly or through each other), the same frozen objects for every operation: each tool schema stays
self-contained for a model and a validator, while a big spec costs its shared parts once on disk and in memory
instead of once per operation (Discord's 242 operations once wrote 58 MB, one operation 1.9 MB).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

DEFS = "#/$defs/"


def refs_in(value: Any) -> set[str]:
    """The shared names ``value`` refers to directly (``#/$defs/NAME``)."""
    found: set[str] = set()
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str) and ref.startswith(DEFS):
                found.add(ref[len(DEFS) :])
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return found


def ref_graph(schemas: Mapping[str, Any]) -> dict[str, set[str]]:
    """Shared name -> the shared names its schema refers to directly (walked once per schema)."""
    return {name: refs_in(schema) for name, schema in schemas.items()}


def reach(roots: Iterable[str], graph: Mapping[str, Iterable[str]]) -> list[str]:
    """The shared names reachable from ``roots`` (themselves included) that ``graph`` knows, in reaching order."""
    reached: dict[str, None] = {}
    pending = [name for name in roots if name in graph]
    while pending:
        name = pending.pop()
        if name in reached:
            continue
        reached[name] = None
        pending.extend(other for other in graph[name] if other in graph and other not in reached)
    return list(reached)


def with_defs(
    schema: Mapping[str, Any],
    schemas: Mapping[str, Any],
    graph: Mapping[str, Iterable[str]],
    memo: dict[frozenset[str], list[str]] | None = None,
) -> Any:
    """``schema`` with the shared schemas it reaches as its ``$defs`` (beside any of its own); as it is when it
    reaches none. ``memo`` keeps what each set of direct references reaches, for many schemas over one graph."""
    roots = frozenset(refs_in(schema))
    if memo is None:
        reached = reach(roots, graph)
    elif roots in memo:
        reached = memo[roots]
    else:
        reached = memo[roots] = reach(roots, graph)
    if not reached:
        return schema
    own = schema.get("$defs")
    return {**schema, "$defs": {**(own if isinstance(own, Mapping) else {}), **{n: schemas[n] for n in reached}}}


def without_defs(schema: Mapping[str, Any], graph: Mapping[str, Iterable[str]]) -> dict[str, Any]:
    """``schema`` without the shared schemas ``with_defs`` attached (its own ``$defs`` kept), for storing."""
    own = schema.get("$defs")
    if not isinstance(own, Mapping):
        return dict(schema)
    rest = {name: value for name, value in own.items() if name not in graph}
    body = {key: value for key, value in schema.items() if key != "$defs"}
    return {**body, "$defs": rest} if rest else body
