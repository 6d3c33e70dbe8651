"""``--sample stratified:N[:TAG_PREFIX]``: which N of a world's tasks a run plays, each stratum in proportion.

The 003 study (WildAgtEval) evaluates on "a stratified subset of 50 conversations" to bound cost; a subset that keeps
the strata in proportion measures what the whole set would, where ``--limit`` (the first N) keeps whatever the file
order gives. A task's stratum is its first tag starting with TAG_PREFIX (default: the first of
``DEFAULT_PREFIXES`` any task of the world has); a task without one is a stratum of its own kind, ``(untagged)``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

DEFAULT_PREFIXES = ("difficulty:", "category:", "complexity:")
"""Tags a stratified sample groups by when no prefix is named, in this order."""
UNTAGGED = "(untagged)"


class _Tagged(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def tags(self) -> list[str]: ...


@dataclass(frozen=True)
class TaskSample:
    size: int
    prefix: str | None = None
    """Tags starting with this name the strata; None: the first of DEFAULT_PREFIXES the world's tasks have."""

    @property
    def text(self) -> str:
        return f"stratified:{self.size}" + (f":{self.prefix}" if self.prefix is not None else "")


def parse_sample(raw: str) -> TaskSample:
    """``stratified:N`` or ``stratified:N:TAG_PREFIX``. Raises ValueError saying what is wrong."""
    kind, _, rest = raw.strip().partition(":")
    if kind != "stratified":
        raise ValueError(f"{raw!r}: the one sample kind is stratified (stratified:N or stratified:N:TAG_PREFIX)")
    size, _, prefix = rest.partition(":")
    if not size.isdigit() or int(size) < 1:
        raise ValueError(f"{raw!r}: N must be a number of tasks, 1 or more (stratified:N)")
    if ":" in rest and not prefix:
        raise ValueError(f"{raw!r}: the tag prefix after N is empty (stratified:N:TAG_PREFIX, e.g. difficulty:)")
    return TaskSample(int(size), prefix or None)


def stratum_prefix(sample: TaskSample, tasks: Sequence[_Tagged]) -> str:
    """The prefix the strata are named by. Raises ValueError when no prefix is named and the tasks have none of the
    default ones, or the named one is on no task."""
    tags = {tag for task in tasks for tag in task.tags}
    if sample.prefix is not None:
        if not any(tag.startswith(sample.prefix) for tag in tags):
            raise ValueError(f"{sample.text}: no task has a tag starting with {sample.prefix!r}{_tags_hint(tasks)}")
        return sample.prefix
    for prefix in DEFAULT_PREFIXES:
        if any(tag.startswith(prefix) for tag in tags):
            return prefix
    raise ValueError(
        f"{sample.text}: the tasks have no {'/'.join(DEFAULT_PREFIXES)} tag to stratify by: name a tag prefix, "
        f"stratified:{sample.size}:PREFIX{_tags_hint(tasks)}"
    )


def _tags_hint(tasks: Sequence[_Tagged]) -> str:
    counts: dict[str, int] = {}
    for task in tasks:
        for tag in task.tags:
            counts[tag] = counts.get(tag, 0) + 1
    common = sorted(counts, key=lambda t: (-counts[t], t))[:8]
    return f" (their tags: {', '.join(common)})" if common else " (they have no tags)"


def stratum_of(task: _Tagged, prefix: str) -> str:
    return next((tag for tag in task.tags if tag.startswith(prefix)), UNTAGGED)


def allocate(sizes: dict[str, int], n: int) -> dict[str, int]:
    """N split over the strata in proportion to their sizes (largest remainder; ties to the larger stratum, then by
    name), never more than a stratum holds."""
    total = sum(sizes.values())
    quotas = {s: n * size / total for s, size in sizes.items()}
    counts = {s: int(q) for s, q in quotas.items()}
    order = sorted(sizes, key=lambda s: (-(quotas[s] - counts[s]), -sizes[s], s))
    for s in order[: n - sum(counts.values())]:
        counts[s] += 1
    return counts


def stratified(tasks: Sequence[_Tagged], sample: TaskSample, seed: int) -> tuple[list[int], dict[str, list[int]]]:
    """The positions of the sampled tasks (in the world's order), and per stratum (sorted by name) how many of how
    many it kept. Deterministic: the same tasks, sample and seed choose the same tasks. Raises ValueError (a
    prefix no task has; N over the tasks there are)."""
    if sample.size > len(tasks):
        raise ValueError(f"{sample.text}: asks for {sample.size} tasks of the {len(tasks)} there are")
    prefix = stratum_prefix(sample, tasks)
    members: dict[str, list[int]] = {}
    for i, task in enumerate(tasks):
        members.setdefault(stratum_of(task, prefix), []).append(i)
    counts = allocate({s: len(m) for s, m in members.items()}, sample.size)
    chosen: list[int] = []
    for stratum in sorted(members):
        rng = random.Random(f"{seed}:{stratum}")  # per stratum: one stratum's draw does not move another's
        chosen += rng.sample(members[stratum], counts[stratum])
    kept = {s: [counts[s], len(members[s])] for s in sorted(members)}
    return sorted(chosen), kept
