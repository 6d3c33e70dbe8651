"""``execute``: one run in this process — prepare, open the executor, drive the episodes, summarise.

Order matters for "bad input writes nothing": the world (with its gold plans run by execution), the
plan, the user, the stressors, the judges, the run folder's name and the agent's model are all checked
— and the embedded model server started — before the run folder is created (``sim.run.prepare``, then
``sim.run.session.episode_session``, then ``sim.run.driver.drive``, which creates it).

The backend-agnostic parts live in ``sim.run.driver`` (store, resume, judge queue, summary) and
``sim.run.executors`` (where episodes run); ``sim.run.session`` is the one place that builds model access and
plays an episode in a process (a Ray executor's workers open the same session, one per worker process).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from judges.run_summary import RunSummary
from sim.config.run_config import RunConfig
from sim.judging.judge_set import open_judges
from sim.run.driver import OnEpisode, drive
from sim.run.executors import CostCeiling, Executor, InProcessExecutor
from sim.run.executors.episode_worker import judges_in_workers
from sim.run.executors.local_workers import default_workers, local_workers
from sim.run.prepare import PreparedRun, prepare
from sim.run.session import episode_session
from sim.store.run_store import RunStore, write_json_atomic

__all__ = ["execute"]


async def execute(
    config: RunConfig, on_start: Callable[[int, int], None] | None = None, on_episode: OnEpisode | None = None
) -> tuple[RunStore, RunSummary]:
    """Run every planned episode not yet in the store; returns the store and the run summary."""
    if config.backend == "ray":
        from sim.run.executors.ray_cluster import require_ray

        if config.workers is not None:
            raise config.problem("workers", "is for local worker processes; --backend ray takes --ray-workers")
        require_ray(config)
    run = await prepare(config)
    async with open_judges(config) as judges, _open_executor(config, run) as (executor, cost):
        if config.max_cost is not None:
            executor = CostCeiling(executor, cost, config.max_cost)
        store, summary = await drive(run, judges, executor, on_start, on_episode)
    if isinstance(executor, CostCeiling) and executor.reached is not None:
        summary = summary.model_copy(update={"stopped_by_max_cost": executor.reached})
        write_json_atomic(store.root / "summary.json", summary.as_dict())
    return store, summary


@asynccontextmanager
async def _open_executor(config: RunConfig, run: PreparedRun) -> AsyncIterator[tuple[Executor, Callable[[], float]]]:
    """Where the episodes play, and what their model calls have cost so far: this process's event loop, or Ray
    workers (``--backend ray``; Ray is imported only then). Opened before the run folder exists."""
    if config.backend == "ray":
        from sim.run.executors.ray_executor import ray_executor

        async with ray_executor(config, run) as remote:
            yield remote, remote.cost
        return
    if (workers := default_workers(config)) > 1:
        score_set = run.score_set if judges_in_workers(config) else None  # else the driver judges their traces
        async with local_workers(config, run.root, workers, score_set) as local:
            yield local, local.cost
        return
    async with episode_session(config, run.agent_spec, run.pack, run.root) as session:
        yield InProcessExecutor(session.run_one, config.concurrency), session.cost
