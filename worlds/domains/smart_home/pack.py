"""The smart home as a ``WorldPack``: frozen data loaded once, a copy-on-write fork per episode."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sim.core import Task, ToolSpec, WorldContext
from worlds.common.task_check import check_tasks_static
from worlds.domains.smart_home.specs import SPECS
from worlds.domains.smart_home.state import HomeState
from worlds.domains.smart_home.world import (
    WORLD_NAME,
    DeviceChanges,
    SmartHomeWorld,
    argument_checkers,
    home_items,
)
from worlds.task_files import load_tasks

DATA_DIR = Path(__file__).parent / "data"


class SmartHomePack:
    """Serves the built-in tasks, or any given tasks over the same home and tools."""

    name: str = WORLD_NAME
    same_world_every_seed = True
    """Nothing in the home is random: every seed and task builds the same world (replays of the gold can be shared)."""

    def __init__(self, tasks: Sequence[Task] | None = None, data_dir: Path = DATA_DIR) -> None:
        """Raises ValueError (pydantic's ValidationError, or TaskFileError) when data or tasks are bad."""
        home_file = data_dir / "home.json"
        try:
            self._home = HomeState.model_validate_json(home_file.read_bytes())
        except OSError as error:
            raise ValueError(f"{home_file}: cannot read: {error}") from error
        self._checkers = argument_checkers()
        self._base_items = home_items(self._home)  # shared: worlds report their changes from it
        self._device_changes = DeviceChanges()
        self._tasks = tuple(tasks) if tasks is not None else tuple(load_tasks(data_dir / "tasks.jsonl"))
        check_tasks_static(self._tasks, WORLD_NAME, self._checkers)

    def tasks(self) -> list[Task]:
        return list(self._tasks)

    def tool_specs(self) -> list[ToolSpec]:
        return list(SPECS)

    def new_world(self, seed: int, context: WorldContext | None = None) -> SmartHomeWorld:
        return SmartHomeWorld(
            self._home.fork(), seed, self._checkers, base_items=self._base_items, memo=self._device_changes
        )
