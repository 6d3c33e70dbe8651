"""τ²-bench as squall worlds: ``--world tau2:airline``, ``tau2:retail``, ``tau2:mock`` (``:<split>`` for a split).

τ²'s tasks, databases and policies come from the installed ``inspect-evals`` wheel's data files
(``worlds.tau2.source``: read as files, its Python never imported); the domains' agent tools are squall's own,
written from τ²'s documented behaviour. The ``tau2_reward`` judge computes τ²'s reward from the trace.
"""

from __future__ import annotations

from worlds.tau2.pack import SCHEME, Tau2Pack, listing, load_pack
from worlds.tau2.source import Tau2Error

__all__ = ["SCHEME", "Tau2Error", "Tau2Pack", "listing", "load_tau2_world"]


def load_tau2_world(spec: str) -> Tau2Pack:
    """The pack a ``tau2:<domain>[:<split>]`` spec names. Raises Tau2Error (a ValueError) naming the spec."""
    return load_pack(spec)
