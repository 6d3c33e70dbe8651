"""Why tool search missed a gold tool: what took the top-k slots above it, classified by the tools' origins.

Each tool of a measured toolkit carries an ``Origin`` (``tool_search_toolkits.py`` records it while building):
what made it (the query world's own tool, a Spider SEL function, a templated neighbour, another world's tool, a
generated business tool), its group (a Spider database, a multidomain domain, another world), the original it was
written from (a neighbour's source; itself otherwise) and, on Spider, the tables its SQL reads.

A tool in a slot above a missed gold tool ``g`` is, checked in this order:

- ``gold``: another gold tool of the same turn (it had to be there; it costs ``g`` a slot all the same);
- ``neighbour``: a templated neighbour written from ``g`` (``count_singer_history`` above ``count_singer``);
- ``same table``: (Spider) reading a table ``g`` reads: the SEL functions of the question's table, other
  questions' functions on it, their neighbours;
- ``other gold's look-alike``: either relation to another gold tool of the turn (the request's main tool's
  neighbours crowding out its support lookup);
- ``same group``: the same database (Spider) or domain (multidomain) as ``g``;
- ``other gold's group``: the database or domain of another gold tool of the turn (the other half of an
  "X. Also, Y." request);
- ``unrelated``: anything else (another database, domain or world, a generated business tool).

A miss's class is the relation holding most of its k slots (a tie goes to the earlier relation in that list).
It is ``covered`` when a tool above it has every word of its name and more, as BM25 reads names (``tokens``:
``count_singer_history`` covers ``count_singer``): no weighting of the name's words puts the gold tool first.
Separately, a miss is ``support`` when ``g`` is a support call of its turn (a lookup the request does not ask for:
``list_rooms`` before ``set_power``), ``core`` otherwise.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from worlds.stressors.search.index import tokens

RELATIONS = (
    *("gold", "neighbour", "same table", "other gold's look-alike"),
    *("same group", "other gold's group", "unrelated"),
)


@dataclass(frozen=True)
class Origin:
    kind: str
    """own, sel, neighbour, world or generated."""
    group: str
    """A Spider database, a multidomain domain, another world's name, ``generated``."""
    source: str
    """The original a neighbour was written from; the tool's own name otherwise."""
    tables: frozenset[str] = field(default_factory=frozenset)
    """The tables a Spider function's SQL reads (a neighbour: its source's); empty elsewhere."""


@dataclass(frozen=True)
class Miss:
    query: str
    gold: str
    role: str
    """core or support."""
    rank: int
    """1-based rank of the gold tool."""
    above: list[str]
    """The k tools ranked above it, best first."""
    relations: list[str]
    kinds: list[str]
    """Each slot's origin kind (own, sel, neighbour, world, generated)."""
    verdict: str
    covered: bool


def alike(tool: Origin, name: str, gold: Origin) -> str | None:
    """``neighbour`` (written from the gold tool), ``same table`` (Spider: reads one of its tables) or None."""
    if tool.source == name:
        return "neighbour"
    return "same table" if tool.tables & gold.tables else None


def relation(name: str, missed: str, gold: set[str], origins: Mapping[str, Origin]) -> str:
    tool, target = origins[name], origins[missed]
    if name in gold:
        return "gold"
    if (found := alike(tool, missed, target)) is not None:
        return found
    others = {other: origins[other] for other in gold - {missed}}
    if any(alike(tool, other, origin) for other, origin in others.items()):
        return "other gold's look-alike"
    if tool.group == target.group:
        return "same group"
    return "other gold's group" if any(tool.group == o.group for o in others.values()) else "unrelated"


def verdict(relations: Iterable[str]) -> str:
    """The relation holding most slots; ties to the earlier one in ``RELATIONS`` (the more specific)."""
    counts = Counter(relations)
    return max(RELATIONS, key=lambda r: (counts[r], -RELATIONS.index(r)))


def miss(
    query: str, missed: str, gold: set[str], core: set[str], ranked: list[str], origins: Mapping[str, Origin], k: int
) -> Miss:
    """``ranked``: every tool best first (the missed one somewhere past ``k``)."""
    above = ranked[:k]
    relations = [relation(name, missed, gold, origins) for name in above]
    role = "core" if missed in core else "support"
    kinds = [origins[name].kind for name in above]
    words = set(tokens(missed))  # the words BM25 reads of a name
    covered = any(words < set(tokens(name)) for name in above)
    rank = ranked.index(missed) + 1
    return Miss(query, missed, role, rank, above, relations, kinds, verdict(relations), covered)


def summary(misses: list[Miss], turns: int, k: int) -> list[str]:
    """Printable lines: misses by class, by role, the slots by relation, how far the gold tools fell."""
    if not misses:
        return [f"misses: none of {turns} turns' gold tools fell out of the top {k}"]
    total, slots = len(misses), Counter(r for m in misses for r in m.relations)
    ranks = [m.rank for m in misses]
    lines = [f"misses: {total} gold tools out of the top {k} ({turns} turns)"]
    lines += [f"  class {r}: {n} ({n / total:.0%})" for r, n in Counter(m.verdict for m in misses).most_common()]
    lines += [f"  role {r}: {n} ({n / total:.0%})" for r, n in Counter(m.role for m in misses).most_common()]
    lines += [f"  slots {r}: {slots[r]} ({slots[r] / (total * k):.0%})" for r in RELATIONS if slots[r]]
    for r in RELATIONS:
        kinds = Counter(kind for m in misses for rel, kind in zip(m.relations, m.kinds, strict=True) if rel == r)
        if kinds:
            lines.append(f"  slots {r} by origin: " + ", ".join(f"{kind} {n}" for kind, n in kinds.most_common()))
    covered = sum(m.covered for m in misses)
    lines.append(f"  covered (a tool above has every word of its name): {covered} ({covered / total:.0%})")
    near = sum(r <= 2 * k for r in ranks)
    lines.append(f"  rank: median {median(ranks)}, within {2 * k}: {near} ({near / total:.0%})")
    for role in ("core", "support"):
        if found := [m.rank for m in misses if m.role == role]:
            lines.append(f"  rank of {role} misses: median {median(found)}")
    return lines


def median(values: list[int]) -> int:
    """The upper median: a rank that occurred."""
    return sorted(values)[len(values) // 2]


def write(misses: list[Miss], path: Path) -> None:
    """One JSON object a line, in query order."""
    with path.open("w") as out:
        for m in misses:
            out.write(json.dumps(m.__dict__) + "\n")
