"""The Berkeley Function Calling Leaderboard as squall worlds: ``--world bfcl:<category>``.

BFCL's data and backends come from the installed ``bfcl-eval`` wheel (``worlds.bfcl.source``); nothing of BFCL is
copied here. Multi-turn categories run BFCL's own backend classes per episode (``worlds.bfcl.multi_turn``);
single-turn categories are spec-only worlds answered neutrally (``worlds.bfcl.single_turn``).
"""

from __future__ import annotations

from sim.core import WorldPack
from worlds.bfcl.categories import MULTI_TURN, NOT_SUPPORTED, SINGLE_TURN, BfclError, select

__all__ = ["MULTI_TURN", "NOT_SUPPORTED", "SINGLE_TURN", "BfclError", "load_bfcl_world"]


def load_bfcl_world(spec: str) -> WorldPack:
    """The pack a ``bfcl:<category>`` spec names; its name is the spec as given. Raises BfclError (a ValueError)
    naming the spec for an unknown or unsupported category, or when bfcl-eval is not installed."""
    selection = select(spec)
    if selection.kind == "multi_turn":
        from worlds.bfcl.multi_turn_pack import multi_turn_pack

        return multi_turn_pack(spec, selection.categories)
    try:
        from worlds.bfcl.single_turn import single_turn_pack  # helper B's module
    except ModuleNotFoundError as error:
        if error.name != "worlds.bfcl.single_turn":
            raise
        raise BfclError(f"{spec}: single-turn BFCL worlds are not built yet") from None
    # The category as the spec writes it (an alias such as ``simple`` too): the pack is named ``bfcl:<category>``.
    return single_turn_pack(spec.removeprefix("bfcl:"))
