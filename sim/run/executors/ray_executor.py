"""Episodes on Ray (``--backend ray``): worker actors play them, this process stays the driver.

    driver (squall run): plan ─▶ slots ──spec JSON───────▶ EpisodeWorker actor × N (each: one episode_session, its
                         sink ◀─the store's lines──┘  own event loop, its share of the episode slots and rate limits)

Each actor opens ``episode_session`` once (its own gateway, agent and scheduler, with its share of the run's limits:
``worker_share``) and plays ``EpisodeSpec``s sent as JSON; it judges each one and returns a ``JudgedEpisode`` (the
store's lines, encoded there, which the driver appends unparsed) — or, where the judges ask a model or need the
judge thread (``judges_in_workers``), the ``EpisodeResult`` JSON for the driver to judge. The driver keeps
``concurrency`` slots spread over the actors; a slot takes the next spec from the driver's lazy iterator only when it
is free, awaits the actor's answer and hands it to the driver's sink, so the driver remains the single writer and
summariser and resume works exactly as in-process. On an error or cancellation the actors are killed:
the episodes they had in flight are lost, never half stored, and ``--resume`` runs them again.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import ray
from ray.exceptions import RayActorError, RayTaskError

from sim.config.run_config import ConfigError, RunConfig
from sim.core import EpisodeResult
from sim.episode.loop import EpisodeSpec
from sim.run.executors.base import Finished, JudgedEpisode, Player, ResultSink, play_in_slots
from sim.run.executors.episode_worker import EpisodeWorker, judges_in_workers
from sim.run.executors.ray_cluster import Cluster, ray_cluster
from sim.run.executors.worker_share import WorkerConfig, worker_configs, worker_count
from sim.run.prepare import PreparedRun

OPEN_TIMEOUT_S = 300.0
"""How long the workers may take to start and open their sessions (a busy cluster may not place them at all)."""


class RayExecutor:
    """Plays specs on the actors: ``slots[i]`` episodes at a time on ``actors[i]``; ``judged``: the actors judge them.
    ``cost`` is what the finished episodes cost (what is in flight arrives with its trace): --max-cost reads it
    between episodes."""

    def __init__(self, actors: list[Any], slots: list[int], judged: bool = False) -> None:
        self._actors, self._slots, self._judged = actors, slots, judged
        self._spent = 0.0

    @property
    def concurrency(self) -> int:
        return sum(self._slots)

    def cost(self) -> float:
        return self._spent

    async def run(self, todo: Iterator[EpisodeSpec], sink: ResultSink) -> None:
        async def record(finished: Finished) -> None:
            self._spent += finished.done.cost if isinstance(finished, JudgedEpisode) else finished.usage.cost
            await sink(finished)

        def player(actor: Any) -> Player:
            async def play(spec: EpisodeSpec) -> Finished:
                if self._judged:
                    judged: JudgedEpisode = await actor.play_judged.remote(spec.model_dump_json())
                    return judged
                return EpisodeResult.model_validate_json(await actor.play.remote(spec.model_dump_json()))

            return play

        players = [(player(a), n) for a, n in zip(self._actors, self._slots, strict=True)]
        await play_in_slots(players, todo, record, self.kill)

    def kill(self) -> None:
        """Stop every actor and what it plays (idempotent)."""
        for actor in self._actors:
            ray.kill(actor, no_restart=True)


@asynccontextmanager
async def ray_executor(config: RunConfig, run: PreparedRun) -> AsyncIterator[RayExecutor]:
    """Connect to (or start) the cluster, start the workers and open their sessions; yields the executor. On exit
    the workers close their sessions (after a clean run) and are killed; a cluster started here is shut down."""
    async with ray_cluster(config) as cluster:
        workers = worker_count(config, config.ray_workers or cluster.cpus or 1)
        configs = worker_configs(config, workers)
        score_set = run.score_set if judges_in_workers(config) else None
        actors = _start_actors(configs, cluster, run.root, score_set)
        executor = RayExecutor(actors, [c.concurrency for c in configs], judged=score_set is not None)
        try:
            await _open_all(actors)
            yield executor
            await asyncio.gather(*(actor.close.remote() for actor in actors))
        finally:
            executor.kill()


def _start_actors(configs: list[WorkerConfig], cluster: Cluster, root: Path, score_set: str | None) -> list[Any]:
    remote = ray.remote(EpisodeWorker)
    # A CPU each where the cluster has them; a fraction each where there are more workers than CPUs (rather than
    # actors that never start). SPREAD: one per node before two on any.
    cpus = min(1.0, cluster.cpus / len(configs)) if cluster.cpus else 0.0
    actors = []
    for i, cfg in enumerate(configs):
        # Each worker keeps its own scheduler decision log; only where the run folder is on its file system.
        log_root = str(root / "workers" / str(i)) if cluster.local else None
        options = remote.options(max_concurrency=cfg.concurrency + 1, num_cpus=cpus, scheduling_strategy="SPREAD")
        actors.append(options.remote(cfg.model_dump_json(), log_root, score_set))
    return actors


async def _open_all(actors: list[Any]) -> None:
    try:
        await asyncio.wait_for(asyncio.gather(*(actor.open.remote() for actor in actors)), OPEN_TIMEOUT_S)
    except TimeoutError:
        raise ConfigError(
            f"--backend ray: {len(actors)} Ray workers did not start within {OPEN_TIMEOUT_S:.0f}s (is the cluster "
            "busy or too small? see --ray-workers)"
        ) from None
    except RayTaskError as exc:
        # The worker's own checks (an unusable agent model, a world path its node lacks) are bad input: raised as
        # themselves, one line at the command line; Ray's wrapper (the worker's traceback) stays as the cause.
        if isinstance(exc.cause, Exception):
            raise exc.cause from exc
        raise
    except RayActorError as exc:  # the worker process died starting (squall missing on a node, out of memory)
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConfigError(f"--backend ray: a Ray worker died while starting: {first_line}") from exc
