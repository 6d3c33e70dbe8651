"""Shipped simulated worlds: ``ticket_desk`` (a help desk's OpenAPI document, 12 operations, 20 tasks) with its
cache committed, so it runs offline with no model at all."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sim.core import Task
from sim.core.bounded_read import SETTINGS_LIMIT
from sim.core.structured import load_toml
from worlds.simulated.folder import load_simulated_folder
from worlds.simulated.world import SimulatedPack

TICKET_DESK = Path(__file__).parent / "ticket_desk"


def ticket_desk_pack(tasks: Sequence[Task] | None = None) -> SimulatedPack:
    """The ticket desk, serving its own tasks or the given ones."""
    pack = load_simulated_folder(TICKET_DESK, load_toml(TICKET_DESK / "world.toml", SETTINGS_LIMIT))
    return pack if tasks is None else pack.with_tasks(tasks)
