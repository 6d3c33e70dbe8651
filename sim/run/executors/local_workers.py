"""Episodes in N local worker processes (``--workers N``): every core of one machine, this process the driver.

    driver: plan ─▶ slots ──"P id spec"───────────▶ worker process × N (each: one EpisodeWorker — the Ray actor's
            sink ◀──"J id" + the store's lines──┘ code — with its share of the episode slots and rate limits:
                                                  ``worker_share``; it plays and judges)

Why processes: past a few hundred episodes in flight one process is CPU-bound on one core (the event loop, the HTTP
client, the worlds). The driver keeps what must be single: the store writer, the judge queue, resume and the
summary, so kill -9 and ``--resume`` behave exactly as in-process (an episode counts once the driver stored it;
what a worker had in flight is lost and played again). The workers judge what they play and send the store's lines
ready-made, which the driver appends unparsed (``episode_worker``; they send the trace, for the driver to judge, where
the judges ask a model or need the judge thread). Workers die with the driver: end of their stdin, or the kernel's
parent-death signal. Ray (``--backend ray``) runs the same ``EpisodeWorker`` past one machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections import deque
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

from sim.config.errors import ConfigError
from sim.config.run_config import RunConfig
from sim.core import EpisodeResult
from sim.episode.loop import EpisodeSpec
from sim.run.executors.base import EpisodeDone, Finished, JudgedEpisode, Player, ResultSink, play_in_slots
from sim.run.executors.worker_share import WorkerConfig, worker_configs, worker_count
from sim.store.toolkits import Toolkit

OPEN_TIMEOUT_S = 300.0
"""How long a worker may take to import squall, load the world and open its session (a loaded machine is slow)."""

_STDERR_LINES = 40


class WorkerDied(RuntimeError):
    """A worker process ended or failed mid-run: the run stops; ``--resume`` plays what it had in flight."""


def default_workers(config: RunConfig) -> int:
    """``--workers`` when given; else the machine's cores once the run is large enough to need more than one
    process (one process serves a few hundred episodes in flight at the Little's-law bound, and a worker's
    start-up — importing squall, loading the world — costs more than a small run saves); never for an embedded
    model server (each worker would start its own)."""
    if config.workers is not None:
        return config.workers
    if config.agent is None or config.concurrency < 200:
        return 1
    return max(1, min(os.cpu_count() or 1, config.concurrency // 100))


class _Worker:
    """The driver's handle on one worker process: its pipes, and the episodes it has in flight."""

    def __init__(self, index: int, process: asyncio.subprocess.Process) -> None:
        self.index = index
        self.process = process
        self.waiting: dict[int, asyncio.Future[Finished]] = {}
        self.stderr: deque[str] = deque(maxlen=_STDERR_LINES)
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.error: BaseException | None = None
        self._tasks = [asyncio.create_task(self._read()), asyncio.create_task(self._drain_stderr())]

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")

    async def play(self, episode: int, spec: EpisodeSpec) -> Finished:
        if self.error is not None:
            raise self.error
        future: asyncio.Future[Finished] = asyncio.get_running_loop().create_future()
        self.waiting[episode] = future
        self.send(f"P {episode} {spec.model_dump_json()}")
        assert self.process.stdin is not None
        await self.process.stdin.drain()
        return await future

    def died(self, message: str) -> WorkerDied:
        tail = "\n".join(self.stderr)
        return WorkerDied(f"worker process {self.index} {message}" + (f"; its last output:\n{tail}" if tail else ""))

    async def _read(self) -> None:
        assert self.process.stdout is not None
        try:
            while line := await self.process.stdout.readline():
                kind, _, rest = line.decode().rstrip("\n").partition(" ")
                if kind == "J":
                    await self._judged(rest)
                elif kind == "R":
                    episode, _, trace = rest.partition(" ")
                    future = self.waiting.pop(int(episode))
                    if not future.done():
                        future.set_result(EpisodeResult.model_validate_json(trace))
                elif kind == "E":
                    episode, _, message = rest.partition(" ")
                    self._fail(self.died(f"failed an episode: {json.loads(message)}"), self.waiting.pop(int(episode)))
                elif kind == "READY":
                    self.ready.set_result(None)
                elif kind == "FAIL":
                    self._fail(ConfigError(json.loads(rest)))
            await self.process.wait()
            self._fail(self.died(f"exited (status {self.process.returncode})"))
        except (ValueError, KeyError, TypeError) as exc:  # a line outside the protocol: the worker is not one of ours
            self._fail(self.died(f"broke the protocol: {exc}"))

    async def _judged(self, header: str) -> None:
        """A judged episode: its header's fields, then its store lines, taken as they are (never parsed here)."""
        assert self.process.stdout is not None
        episode, count, sha, done = header.split(" ", 3)
        toolkit = sha != "-"
        lines = [await self.process.stdout.readline() for _ in range(toolkit + 1 + int(count))]
        if not lines[-1].endswith(b"\n"):
            return  # the worker died mid-answer (end of output): reported as its exit, the episode played again
        if toolkit:
            judged = JudgedEpisode(EpisodeDone(**json.loads(done)), lines[1], tuple(lines[2:]), Toolkit(sha, lines[0]))
        else:
            judged = JudgedEpisode(EpisodeDone(**json.loads(done)), lines[0], tuple(lines[1:]))
        future = self.waiting.pop(int(episode))
        if not future.done():
            future.set_result(judged)

    def _fail(self, error: BaseException, *extra: asyncio.Future[Finished]) -> None:
        if self.error is None:
            self.error = error
        futures: list[asyncio.Future[Finished] | asyncio.Future[None]] = [*extra, *self.waiting.values()]
        for future in [*futures, self.ready]:
            if not future.done():
                future.set_exception(error)
                future.exception()  # retrieved: a worker nobody waits on must not log "never retrieved"
        self.waiting.clear()

    async def _drain_stderr(self) -> None:
        assert self.process.stderr is not None
        while line := await self.process.stderr.readline():
            self.stderr.append(line.decode(errors="replace").rstrip())

    def kill(self) -> None:
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()

    async def close(self) -> None:
        """Ask the worker to close its session and exit; wait for it."""
        if self.process.returncode is None and self.error is None:
            self.send("C")
            assert self.process.stdin is not None
            with contextlib.suppress(ConnectionError):
                await self.process.stdin.drain()
            await self.process.wait()
        await asyncio.gather(*self._tasks, return_exceptions=True)


class LocalWorkersExecutor:
    """Plays specs on the worker processes: ``slots[i]`` episodes at a time on worker ``i``. ``cost`` is what the
    finished episodes cost (what is in flight arrives with its trace)."""

    def __init__(self, workers: list[_Worker], slots: list[int]) -> None:
        self._workers, self._slots = workers, slots
        self._spent = 0.0
        self._next_id = 0

    @property
    def concurrency(self) -> int:
        return sum(self._slots)

    def cost(self) -> float:
        return self._spent

    def pids(self) -> list[int]:
        return [w.process.pid for w in self._workers]

    async def run(self, todo: Iterator[EpisodeSpec], sink: ResultSink) -> None:
        async def record(finished: Finished) -> None:
            self._spent += finished.done.cost if isinstance(finished, JudgedEpisode) else finished.usage.cost
            await sink(finished)

        def player(worker: _Worker) -> Player:
            async def play(spec: EpisodeSpec) -> Finished:
                self._next_id += 1
                return await worker.play(self._next_id, spec)

            return play

        players = [(player(w), n) for w, n in zip(self._workers, self._slots, strict=True)]
        await play_in_slots(players, todo, record, self.kill)

    def kill(self) -> None:
        for worker in self._workers:
            worker.kill()


@asynccontextmanager
async def local_workers(
    config: RunConfig, root: Path, workers: int, score_set: str | None = None
) -> AsyncIterator[LocalWorkersExecutor]:
    """Start ``workers`` processes and open their sessions; yields the executor. Given the run's ``score_set`` the
    workers judge what they play (``judges_in_workers``); else they send traces for the driver to judge. On exit the
    workers close their sessions (after a clean run) or are killed (an error, a cancellation)."""
    configs = worker_configs(config, worker_count(config, workers))
    started: list[_Worker] = []
    executor = LocalWorkersExecutor(started, [c.concurrency for c in configs])
    try:
        for i, cfg in enumerate(configs):
            started.append(await _start(i, cfg, root / "workers" / str(i), score_set))
        await _open_all(started)
        yield executor
        await asyncio.gather(*(w.close() for w in started))
    finally:
        executor.kill()
        for w in started:
            with contextlib.suppress(ProcessLookupError, ChildProcessError):
                await w.process.wait()


async def _start(index: int, config: WorkerConfig, log_root: Path, score_set: str | None) -> _Worker:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "sim.run.executors.worker_process",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,  # Ctrl-C reaches the driver only; the driver stops the workers
        limit=1 << 30,  # one trace per line
    )
    worker = _Worker(index, process)
    worker.send(json.dumps({"config": config.model_dump_json(), "log_root": str(log_root), "score_set": score_set}))
    return worker


async def _open_all(workers: list[_Worker]) -> None:
    try:
        await asyncio.wait_for(asyncio.gather(*(w.ready for w in workers)), OPEN_TIMEOUT_S)
    except TimeoutError:
        late = f"{len(workers)} worker processes did not start within {OPEN_TIMEOUT_S:.0f}s"
        raise ConfigError(f"--workers: {late} (is the machine overloaded?)") from None
