"""``open_run``: the one assembly of a run — prepare, open the judges and the executor — and ``execute``, which plays
it to the end. ``squall run``, ``chat`` and ``serve --mcp`` open their runs here; ``squall score`` its judges.

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
from dataclasses import dataclass

from judges.run.run_summary import RunSummary
from personas import UserSpec
from sim.agents.factory import AgentOpener
from sim.config.run_config import RunConfig
from sim.core import Event, Judge, User
from sim.judging.judge_set import open_judges
from sim.run.driver import OnEpisode, OnStart, OnWarning, drive
from sim.run.executors import CostCeiling, Executor, InProcessExecutor
from sim.run.executors.episode_worker import judges_in_workers
from sim.run.executors.local_workers import default_workers, local_workers
from sim.run.prepare import PreparedRun, prepare
from sim.run.session import episode_session
from sim.store.run_store import RunStore, write_json_atomic

__all__ = ["OpenRun", "execute", "open_run", "open_stored_run"]


@dataclass(frozen=True)
class OpenRun:
    """A run ready to play: its checked preparation, its judges and where its episodes play."""

    prepared: PreparedRun
    judges: list[Judge]
    executor: Executor

    async def play(
        self,
        on_start: OnStart | None = None,
        on_episode: OnEpisode | None = None,
        on_warning: OnWarning | None = None,
    ) -> tuple[RunStore, RunSummary]:
        """Play every planned episode not yet stored; judge, store, summarise (``sim.run.driver.drive``)."""
        store, summary = await drive(self.prepared, self.judges, self.executor, on_start, on_episode, on_warning)
        if isinstance(self.executor, CostCeiling) and self.executor.reached is not None:
            summary = summary.model_copy(update={"stopped_by_max_cost": self.executor.reached})
            write_json_atomic(store.root / "summary.json", summary.as_dict())
        return store, summary


@asynccontextmanager
async def open_run(
    config: RunConfig,
    *,
    agent: AgentOpener | None = None,
    make_user: Callable[[UserSpec], User] | None = None,
    watch: Callable[[Event], None] | None = None,
) -> AsyncIterator[OpenRun]:
    """The one assembly of a run (``squall run``, ``chat``, ``serve --mcp``): the world, plan and run folder's name
    checked, the judges, the model access and agent; closed on exit. Nothing is written until ``play``.

    ``agent`` opens the agents instead of the config's agent spec (``squall serve --mcp``: the person's explorer);
    ``make_user`` builds each episode's user (``squall chat``: the person at the terminal); ``watch`` sees every event
    as it is recorded. Any of them plays the episodes in this process."""
    if config.backend == "ray":
        from sim.run.executors.ray_cluster import require_ray

        if config.workers is not None:
            raise config.problem("workers", "is for local worker processes; --backend ray takes --ray-workers")
        require_ray(config)
    prepared = await prepare(config)
    here = agent is not None or make_user is not None or watch is not None
    async with (
        open_judges(config) as judges,
        _open_executor(config, prepared, here, agent, make_user, watch) as (executor, cost),
    ):
        if config.max_cost is not None:
            executor = CostCeiling(executor, cost, config.max_cost)
        yield OpenRun(prepared, judges, executor)


@asynccontextmanager
async def open_stored_run(config: RunConfig) -> AsyncIterator[list[Judge]]:
    """A stored run opened to be judged again (``squall score``): its judges, as ``open_run`` builds them."""
    async with open_judges(config) as judges:
        yield judges


async def execute(
    config: RunConfig,
    on_start: OnStart | None = None,
    on_episode: OnEpisode | None = None,
    on_warning: OnWarning | None = None,
) -> tuple[RunStore, RunSummary]:
    """Run every planned episode not yet in the store; returns the store and the run summary."""
    async with open_run(config) as run:
        return await run.play(on_start, on_episode, on_warning)


@asynccontextmanager
async def _open_executor(
    config: RunConfig,
    run: PreparedRun,
    here: bool,
    agent: AgentOpener | None,
    make_user: Callable[[UserSpec], User] | None,
    watch: Callable[[Event], None] | None,
) -> AsyncIterator[tuple[Executor, Callable[[], float]]]:
    """Where the episodes play, and what their model calls have cost so far: this process's event loop (always when
    ``here``), or Ray workers (``--backend ray``; Ray is imported only then), or local worker processes. Opened
    before the run folder exists."""
    if config.backend == "ray" and not here:
        from sim.run.executors.ray_executor import ray_executor

        async with ray_executor(config, run) as remote:
            yield remote, remote.cost
        return
    if not here and (workers := default_workers(config)) > 1:
        score_set = run.score_set if judges_in_workers(config) else None  # else the driver judges their traces
        async with local_workers(config, run.root, workers, score_set) as local:
            yield local, local.cost
        return
    async with episode_session(
        config, run.agent_spec, run.pack, run.root, make_user=make_user, watch=watch, open_agent=agent
    ) as session:
        yield InProcessExecutor(session.run_one, config.concurrency), session.cost
