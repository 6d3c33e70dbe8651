"""Worlds loaded once per test process. Loading one checks its tasks and its toolkit's schemas (0.3 s of CPU for
multidomain, 0.6 s for BFCL multi-turn), and a pack is read-only: a run plays all its episodes, side by side, on one."""

from __future__ import annotations

from functools import cache

import pytest

import sim.run.prepare
from sim.core import WorldPack
from worlds.registry import load_world


@cache
def loaded_world(spec: str) -> WorldPack:
    return load_world(spec)


def load_worlds_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs (``execute``) take their world from ``loaded_world``: several runs of one world load it once."""
    monkeypatch.setattr(sim.run.prepare, "load_world", loaded_world)
