"""The executor protocol: run episode specs somewhere, hand each finished episode back to the driver."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from sim.core import EpisodeResult, Score
from sim.episode.loop import EpisodeSpec
from sim.store.toolkits import Toolkit


@dataclass(frozen=True, slots=True)
class EpisodeDone:
    """What the driver's callers read of a finished, judged episode (the progress bar, ``--max-cost``): a few
    fields, so that an episode judged in a worker process reaches them without its trace being parsed."""

    episode_id: str
    termination: str
    cost: float  # USD of the episode's model calls (``usage.cost``)
    values: dict[str, float | None]  # each judge's value (None: the episode failed or the judge faulted)

    @classmethod
    def of(cls, result: EpisodeResult, scores: Sequence[Score]) -> EpisodeDone:
        return cls(result.episode_id, result.termination, result.usage.cost, {s.judge: s.value for s in scores})


@dataclass(frozen=True, slots=True)
class JudgedEpisode:
    """An episode played and judged in a worker, as the store's lines: the trace's line, its scores' lines and the
    toolkit the trace names, encoded there exactly as the store writer encodes them (``sim.store.episode_json``,
    ``sim.store.writer.store_line``), so that the driver stores them as they came, never parsing the trace."""

    done: EpisodeDone
    episode_line: bytes
    score_lines: tuple[bytes, ...]
    toolkit: Toolkit | None = None  # None: the trace holds its tools inline


Finished = EpisodeResult | JudgedEpisode
"""What an executor hands the driver per episode: a trace for the driver to judge, or one judged where it played."""

ResultSink = Callable[[Finished], Awaitable[None]]
"""The driver's intake, on the driver's event loop: stores the episode and queues a trace for judging (or stores a
judged episode's lines). It returns as soon as the episode is queued (the episode's slot is free then); it waits only
when the store writer or the judge queue is full (backpressure), and raises if the store can no longer be written."""

EpisodeRunner = Callable[[EpisodeSpec], Awaitable[EpisodeResult]]
"""Plays one episode to the end in the calling process (``sim.run.session.episode_session`` makes one)."""

Player = Callable[[EpisodeSpec], Awaitable[Finished]]
"""Plays one episode to the end somewhere (a worker process, a Ray actor) and answers what the sink takes."""


class Executor(Protocol):
    """Runs a run's episodes. The driver owns everything else: the plan, the store, resume, judging, the summary.

    Contract for implementations:
    - take specs from ``todo`` lazily, only when a slot is free (the plan may hold a million episodes; taking
      the next spec never awaits, so specs are never taken twice by concurrent takers);
    - keep at most ``concurrency`` episodes in flight;
    - for each finished episode, ``await sink(finished)`` on the driver's loop, one result at a time per slot,
      before that slot takes its next spec (so the driver's backpressure reaches the slots);
    - return when ``todo`` is exhausted and every result is delivered; raise a sink's error (after stopping
      the other episodes); on cancellation stop every episode in flight — their traces are lost, never half
      stored, and ``--resume`` runs them again.
    """

    @property
    def concurrency(self) -> int: ...

    async def run(self, todo: Iterator[EpisodeSpec], sink: ResultSink) -> None: ...


def first_error(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The first leaf of an exception group (a TaskGroup's): callers report one error, as one line."""
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return error


async def play_in_slots(
    players: Sequence[tuple[Player, int]],
    todo: Iterator[EpisodeSpec],
    sink: ResultSink,
    kill: Callable[[], None],
) -> None:
    """Each (player, slots): that many slots, each playing specs to the end and handing each result to ``sink``
    before taking the next. The slots share one lazy iterator: taking the next spec never awaits, so no spec is
    taken twice. An error or a cancellation calls ``kill`` (whatever still plays is stopped now) and is raised, a
    TaskGroup's as its first error."""

    async def slot(play: Player) -> None:
        for spec in todo:
            await sink(await play(spec))

    try:
        async with asyncio.TaskGroup() as tg:
            for play, slots in players:
                for _ in range(slots):
                    tg.create_task(slot(play))
    except BaseException as exc:
        kill()
        if isinstance(exc, BaseExceptionGroup):
            raise first_error(exc) from None
        raise
