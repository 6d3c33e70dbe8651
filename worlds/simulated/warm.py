"""Fills a simulated world's cache ahead of a run: every path of every goal of every task, as the gold check and
the oracle will replay them, so a run with ``--cache read-only`` asks no model.

Each goal starts from the state its earlier goals' primary paths leave, and each of its paths runs from that
start (``worlds.gold_check``'s order), so reads after writes are cached under the state they will be asked in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sim.core import GoldCall, LLMHandle, Task, ToolCall, WorldContext
from worlds.gold_check import GOLD_ARGUMENTS_UNKNOWN
from worlds.simulated.world import SimulatedPack, SimulatedWorld


@dataclass
class WarmReport:
    """What a warm-up did: calls replayed, answers newly cached, and the calls that failed (task, where, why)."""

    calls: int = 0
    added: int = 0
    failures: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def failed_tasks(self) -> list[str]:
        return sorted({task for task, _, _ in self.failures})


async def warm(
    pack: SimulatedPack,
    llm: LLMHandle | None,
    tasks: Sequence[Task] | None = None,
    progress: Callable[[int, int, Task], None] | None = None,
    cache_mode: str = "read-write",
) -> WarmReport:
    """Replay the gold of ``tasks`` (default: the pack's) through the simulator; misses ask ``llm``."""
    # Gold without arguments (ToolBench queries) has nothing to replay.
    chosen = [task for task in (pack.tasks() if tasks is None else tasks) if GOLD_ARGUMENTS_UNKNOWN not in task.tags]
    report = WarmReport()
    before = pack.runtime.store.count()
    pack.runtime.retry_failures = True  # a warm-up is where a failed simulation gets another chance
    for n, task in enumerate(chosen):
        world = pack.new_world(0, WorldContext(task=task, llm=llm, cache_mode=cache_mode))
        await _task(world, task, report)
        if progress is not None:
            progress(n + 1, len(chosen), task)
    report.added = pack.runtime.store.count() - before
    return report


async def _task(world: SimulatedWorld, task: Task, report: WarmReport) -> None:
    for g, goal in enumerate(task.goals):
        start = world.snapshot()
        done = [
            await _path(world, task, path, f"goals.{g} path {p}", report, start) for p, path in enumerate(goal.paths())
        ]
        if not done[0]:
            return  # later goals were written against the state this one leaves
        world.restore(start)
        await _path(world, task, goal.gold, "", WarmReport(), start)  # cached now: the state the next goal starts in


async def _path(
    world: SimulatedWorld, task: Task, calls: Sequence[GoldCall], where: str, report: WarmReport, start: object
) -> bool:
    world.restore(start)
    for c, gold in enumerate(calls):
        result = await world.call(ToolCall(id=f"warm_{c}", name=gold.name, arguments=dict(gold.arguments)))
        report.calls += 1
        if not result.ok:
            detail = result.content.get("error", result.content) if isinstance(result.content, dict) else result.content
            report.failures.append((task.id, f"{where} call {c} ({gold.name})", f"{result.status}: {detail}"))
            return False
    return True
