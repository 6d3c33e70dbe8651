"""The run plan: which episodes a run holds, produced lazily as they are admitted.

A plan of a million episodes costs the memory of its task list, not of a million specs: episodes are
made one at a time, trial-major, so that any prefix of a run covers every task.

A unit is a task, or in stressor-mode isolated a (task, scenario) pair: every task once unstressed (the
baseline) and once per selected scenario whose tools its gold uses, with that scenario alone. In stressor-mode
incremental a unit is a (task, prefix of the stressor items) pair: every task unstressed, then under A, A+B, A+B+C.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from sim.config.run_config import MAX_PLANNED_EPISODES, ConfigError, RunConfig
from sim.config.task_sample import parse_sample, stratified
from sim.core import EpisodeId, Task, WorldPack
from sim.core.episode_id import incremental_prefixes
from sim.episode.loop import EpisodeSpec


def derive_seed(root: int, task_id: str, trial: int) -> int:
    """Stable per-episode seed: same run seed, task and trial give the same world, user and stressors."""
    digest = hashlib.sha256(f"{root}:{task_id}:{trial}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


@dataclass(frozen=True)
class Unit:
    task: Task
    variant: str = ""
    stressors: tuple[str, ...] | None = None
    user: str = ""
    """The user spec's label when the run has several users ('' = the run's one user)."""

    @property
    def id(self) -> str:
        return EpisodeId.unit_of(self.task.id, self.variant, self.user)


@dataclass(frozen=True)
class Plan:
    units: tuple[Unit, ...]
    trials: int
    seed: int
    strata: dict[str, list[int]] | None = None
    """``--sample stratified``: per stratum, [tasks kept, tasks it has] (the manifest's ``sample_strata``)."""

    def __len__(self) -> int:
        return len(self.units) * self.trials

    def __iter__(self) -> Iterator[EpisodeSpec]:
        for trial in range(self.trials):
            for unit in self.units:
                # A variant shares its baseline's seed: same world, user and agent sampling, one change.
                yield EpisodeSpec(
                    task=unit.task,
                    trial=trial,
                    seed=derive_seed(self.seed, unit.task.id, trial),
                    variant=unit.variant,
                    stressors=unit.stressors,
                    user=unit.user,
                )


def make_plan(config: RunConfig, pack: WorldPack) -> Plan:
    tasks: Sequence[Task] = pack.tasks()
    strata: dict[str, list[int]] = {}
    if config.tasks:
        known = {t.id for t in tasks}
        missing = [t for t in config.tasks if t not in known]
        if missing:
            raise config.problem("tasks", f"unknown task id(s) {', '.join(missing)} in world {pack.name!r}")
        wanted = set(config.tasks)
        tasks = [t for t in tasks if t.id in wanted]
    if config.sample is not None:
        if config.limit is not None:
            raise config.problem("sample", "--sample and --limit both choose the tasks: give one")
        try:
            chosen, strata = stratified(tasks, parse_sample(config.sample), config.seed)
        except ValueError as exc:
            raise config.problem("sample", f"world {pack.name!r}: {exc}") from exc
        tasks = [tasks[i] for i in chosen]
    if config.limit is not None:
        tasks = tasks[: config.limit]
    units = [Unit(task) for task in tasks]
    if config.stressor_mode == "isolated":
        units = [Unit(task, stressors=()) for task in tasks] + isolated_units(config, pack, tasks)
    elif config.stressor_mode == "incremental":
        units = [Unit(task, stressors=()) for task in tasks] + incremental_units(config, tasks)
    users = _user_labels(config)
    if len(users) > 1:  # every user plays every unit, with the same seeds: a paired comparison
        units = [replace(unit, user=label) for label in users for unit in units]
    plan = Plan(tuple(units), config.trials, config.seed, strata if config.sample is not None else None)
    if len(plan) > MAX_PLANNED_EPISODES:
        raise ConfigError(
            f"{config.where('trials')}: the plan has {len(plan):,} episodes ({len(units)} units × {config.trials} "
            f"trials), more than the {MAX_PLANNED_EPISODES:,} one run may hold; split it into several runs"
        )
    return plan


def _user_labels(config: RunConfig) -> list[str]:
    from personas import parse_user_specs

    try:
        return [spec.label for spec in parse_user_specs(config.user)]
    except ValueError as exc:
        raise config.problem("user", str(exc)) from exc


def isolated_units(config: RunConfig, pack: WorldPack, tasks: Sequence[Task]) -> list[Unit]:
    """One unit per (selected scenario, task whose gold uses one of its tools), the scenario alone."""
    from worlds.stressors import select
    from worlds.stressors.catalog import effective, parse_item
    from worlds.stressors.coverage import affected_goals

    if not config.stressors:
        raise config.problem("stressor_mode", "isolated needs stressors to isolate (--stressors)")
    tool_names = [s.name for s in pack.tool_specs()]
    units: list[Unit] = []
    chosen_by: dict[str, str] = {}
    for item in config.stressors:
        try:
            _, overrides = parse_item(item)
            selected = select([item], tool_names)
        except ValueError as error:
            raise config.problem("stressors", str(error)) from error
        suffix = (":" + ",".join(f"{k}={json.dumps(v)}" for k, v in overrides.items())) if overrides else ""
        for scenario, given in selected:
            name = scenario.name
            if name in chosen_by:
                raise config.problem(
                    "stressors",
                    f"{name} is selected twice (by '{chosen_by[name]}' and '{item}'); isolated runs it once",
                )
            chosen_by[name] = item
            touching = effective(scenario, given)  # a rate or from_goal changes which tasks it touches
            for task in tasks:
                if affected_goals(task, touching):
                    units.append(Unit(task, variant=name, stressors=(name + suffix,)))
    return units


def incremental_units(config: RunConfig, tasks: Sequence[Task]) -> list[Unit]:
    """One unit per (prefix of the stressor items, task): every task under every prefix, so that each row is
    paired with the row before it on the same tasks and seeds."""
    if not config.stressors:
        raise config.problem("stressor_mode", "incremental needs stressors to add one by one (--stressors)")
    if len(set(config.stressors)) < len(config.stressors):
        raise config.problem("stressors", "incremental adds each item once: an item is given twice")
    for item in config.stressors:
        if set(item) & set("@~#+"):  # the variant is part of the episode id (sim.core.episode_id)
            raise config.problem("stressors", f"incremental cannot name {item!r} in an episode id (@, ~, # or +)")
    prefixes = incremental_prefixes(config.stressors)
    return [
        Unit(task, variant=name, stressors=tuple(config.stressors[: k + 1]))
        for k, name in enumerate(prefixes)
        for task in tasks
    ]
