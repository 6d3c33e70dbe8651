"""The smart home as a ``WorldPack``: frozen data loaded once, a fresh deep copy per episode."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from sim.core import Task
from worlds.common.arguments import ArgumentChecker
from worlds.domains.smart_home.state import HomeState
from worlds.domains.smart_home.world import WORLD_NAME, SmartHomeWorld, argument_checkers
from worlds.task_files import load_tasks

DATA_DIR = Path(__file__).parent / "data"


class SmartHomePack:
    """Serves the built-in tasks, or any given tasks over the same home and tools."""

    name: str = WORLD_NAME

    def __init__(self, tasks: Sequence[Task] | None = None, data_dir: Path = DATA_DIR) -> None:
        """Raises ValueError (pydantic's ValidationError, or TaskFileError) when data or tasks are bad."""
        home_file = data_dir / "home.json"
        try:
            self._home = HomeState.model_validate_json(home_file.read_bytes())
        except OSError as error:
            raise ValueError(f"{home_file}: cannot read: {error}") from error
        self._checkers = argument_checkers()
        self._tasks = tuple(tasks) if tasks is not None else tuple(load_tasks(data_dir / "tasks.jsonl"))
        check_tasks(self._tasks, self._checkers)

    def tasks(self) -> list[Task]:
        return list(self._tasks)

    def new_world(self, seed: int) -> SmartHomeWorld:
        return SmartHomeWorld(self._home.model_copy(deep=True), seed=seed, checkers=self._checkers)


def check_tasks(tasks: Sequence[Task], checkers: Mapping[str, ArgumentChecker] | None = None) -> None:
    """Static checks: every task is for this world and every gold call is a well-formed call of a real tool.

    Whether the calls succeed in order is a replay question, answered by the tests.
    """
    checkers = checkers if checkers is not None else argument_checkers()
    ids = [task.id for task in tasks]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"duplicate task ids: {', '.join(duplicates)}")
    for task in tasks:
        if task.world != WORLD_NAME:
            raise ValueError(f"task {task.id}: world is '{task.world}', not '{WORLD_NAME}'")
        for t, turn in enumerate(task.turns):
            for p, path in enumerate(turn.paths()):
                for c, call in enumerate(path):
                    where = f"task {task.id}: turns.{t} path {p} call {c} ({call.name})"
                    checker = checkers.get(call.name)
                    if checker is None:
                        raise ValueError(f"{where}: no such tool in {WORLD_NAME}")
                    problem = checker.problems(call.arguments)
                    if problem is not None:
                        raise ValueError(f"{where}: {problem[1]}")
