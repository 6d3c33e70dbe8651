"""Gold calls of intent primitives: a ``core`` call does what the user asked, a ``support`` call finds what it
needs; a lookup is needed only while the conversation has not seen the id (the dependency graph's lookup edge)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sim.core import GoldCall
from worlds.domains.multidomain.state import WorldState


def core(name: str, **arguments: Any) -> GoldCall:
    return GoldCall(name=name, arguments=arguments, role="core")


def support(name: str, **arguments: Any) -> GoldCall:
    return GoldCall(name=name, arguments=arguments, role="support")


def lookup_if_unknown(state: WorldState, kind: str, key: str, lookup: GoldCall) -> list[GoldCall]:
    """The lookup edge of the graph: needed only while the conversation has not seen the id."""
    return [] if state.is_known(kind, key) else [lookup]


@dataclass(frozen=True)
class ListLookup:
    """Finds an entity of ``kind`` by listing all of them with ``tool``, while the conversation has not seen it."""

    kind: str
    tool: str

    def __call__(self, state: WorldState, key: str) -> list[GoldCall]:
        return lookup_if_unknown(state, self.kind, key, support(self.tool))
