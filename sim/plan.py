"""The run plan: which episodes a run holds, produced lazily as they are admitted.

A plan of a million episodes costs the memory of its task list, not of a million specs: episodes are
made one at a time, trial-major, so that any prefix of a run covers every task.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from sim.config import MAX_PLANNED_EPISODES, ConfigError, RunConfig
from sim.core import Task, WorldPack
from sim.episode import EpisodeSpec


def derive_seed(root: int, task_id: str, trial: int) -> int:
    """Stable per-episode seed: same run seed, task and trial give the same world, user and stressors."""
    digest = hashlib.sha256(f"{root}:{task_id}:{trial}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


@dataclass(frozen=True)
class Plan:
    tasks: tuple[Task, ...]
    trials: int
    seed: int

    def __len__(self) -> int:
        return len(self.tasks) * self.trials

    def __iter__(self) -> Iterator[EpisodeSpec]:
        for trial in range(self.trials):
            for task in self.tasks:
                yield EpisodeSpec(task=task, trial=trial, seed=derive_seed(self.seed, task.id, trial))


def make_plan(config: RunConfig, pack: WorldPack) -> Plan:
    tasks: Sequence[Task] = pack.tasks()
    if config.tasks:
        known = {t.id for t in tasks}
        missing = [t for t in config.tasks if t not in known]
        if missing:
            raise config.problem("tasks", f"unknown task id(s) {', '.join(missing)} in world {pack.name!r}")
        wanted = set(config.tasks)
        tasks = [t for t in tasks if t.id in wanted]
    if config.limit is not None:
        tasks = tasks[: config.limit]
    plan = Plan(tuple(tasks), config.trials, config.seed)
    if len(plan) > MAX_PLANNED_EPISODES:
        raise ConfigError(
            f"{config.where('trials')}: the plan has {len(plan):,} episodes ({len(tasks)} tasks × {config.trials} "
            f"trials), more than the {MAX_PLANNED_EPISODES:,} one run may hold; split it into several runs"
        )
    return plan
