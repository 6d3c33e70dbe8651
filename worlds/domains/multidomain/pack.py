"""The multi-domain world as a ``WorldPack``: data and tools loaded once; an episode's world costs an empty
overlay (see ``worlds.common.tables``)."""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from sim.core import Task, ToolSpec, WorldContext
from worlds.common.tables import BaseData
from worlds.common.task_check import check_tasks_static
from worlds.common.toolbook import ToolBook, Toolkit
from worlds.domains.multidomain.domains import DOMAIN_MODULES, TOOL_MODULES
from worlds.domains.multidomain.world import WORLD_NAME, MultiDomainWorld
from worlds.task_files import load_tasks

DATA_DIR = Path(__file__).parent / "data"
CONVERSATIONS = "conversations.jsonl"

INSTRUCTIONS = """\
You are a personal assistant with access to the user's smart home, information services, media, shopping,
food ordering, communication and time tools. You act only through the tools provided.
- Ids come from the lookup tools (find_..., search_..., list_...); never guess them.
- Ask the user for anything only they know; do not invent details.
- If a tool call fails, tell the user what failed and why, and what they can do about it.
Domain rules:"""


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"worlds.domains.multidomain.domains.{name}")


def domain_modules() -> list[ModuleType]:
    return [_module(name) for name in DOMAIN_MODULES]


def load_base(data_dir: Path = DATA_DIR) -> tuple[BaseData, dict[str, Any]]:
    """Every domain's tables, and the world file (clock, users). Raises ValueError naming the file."""
    tables: dict[str, Any] = {}
    world = _read(data_dir / "world.json")
    tables["users"] = world["users"]
    for module in domain_modules():
        data = _read(data_dir / f"{module.DOMAIN}.json")
        missing = [t for t in module.TABLES if t not in data]
        if missing:
            raise ValueError(f"{data_dir / (module.DOMAIN + '.json')}: missing table(s) {', '.join(missing)}")
        for name in module.TABLES:
            if name in tables:
                raise ValueError(f"table {name} is declared by two domains")
            tables[name] = data[name]
    return BaseData(tables), world


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_bytes())
    except OSError as error:
        raise ValueError(f"{path}: cannot read: {error.strerror or error}") from error
    except ValueError as error:
        raise ValueError(f"{path}: not valid JSON: {error}") from error
    if not isinstance(data, dict):
        raise ValueError(f"{path}: must hold a JSON object")
    return data


def build_toolkit() -> tuple[Toolkit, str]:
    modules = domain_modules()
    # Books built here, from the modules each domain lists: importing a domain module registers nothing.
    toolkit = Toolkit(
        ToolBook.collect(m.DOMAIN, map(_module, TOOL_MODULES[name]))
        for name, m in zip(DOMAIN_MODULES, modules, strict=True)
    )
    policies = "\n".join(f"- {m.POLICY}" for m in modules)
    return toolkit, f"{INSTRUCTIONS}\n{policies}"


class MultiDomainPack:
    """Serves the shipped conversations, or any given tasks over the same data and tools."""

    name: str = WORLD_NAME
    same_world_every_seed = True
    """Nothing here is random: every seed and task builds the same world (replays of the gold can be shared)."""

    def __init__(self, tasks: Sequence[Task] | None = None, data_dir: Path = DATA_DIR) -> None:
        self._base, world = load_base(data_dir)
        self._now = str(world["now"])
        self.toolkit, self._instructions = build_toolkit()
        if tasks is None:
            path = data_dir / CONVERSATIONS
            tasks = load_tasks(path) if path.exists() else []
        self._tasks = tuple(tasks)
        check_tasks_static(self._tasks, WORLD_NAME, self.toolkit.checkers)

    def tasks(self) -> list[Task]:
        return list(self._tasks)

    def tool_specs(self) -> list[ToolSpec]:
        return list(self.toolkit.specs)

    def new_world(self, seed: int, context: WorldContext | None = None) -> MultiDomainWorld:
        return MultiDomainWorld(self._base, self._now, self.toolkit, self._instructions, seed=seed)
