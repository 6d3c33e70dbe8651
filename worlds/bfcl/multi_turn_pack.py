"""BFCL's multi-turn categories as one squall pack (being built)."""

from __future__ import annotations

from sim.core import WorldPack
from worlds.bfcl.source import BfclError


def multi_turn_pack(name: str, categories: tuple[str, ...]) -> WorldPack:
    raise BfclError(f"{name}: multi-turn BFCL worlds are not built yet ({', '.join(categories)})")
