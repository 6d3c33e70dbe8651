"""The driver: one run's store, resume, judging queue and summary, around any executor.

    prepare ─▶ store (create / resume) ─▶ judge what a crash left unjudged ─▶ executor.run(todo, sink)
                                                                                      │ trace
              summary.json ◀── summary (streamed) ◀── store writer ◀── judge queue ◀──┤ (stored at once)
                                                                  ◀───────────────────┘ judged episode's lines

The driver is the single writer whatever the backend: executors hand episodes back through ``sink``. A trace is
queued for the store writer and then for the judges; the judge queue's workers queue the scores. An episode
judged where it played (a worker process or a Ray actor: ``sim.run.executors.episode_worker``) comes as the
store's lines, already encoded: they are queued for the writer as they came, the episode's line before its scores'.
An episode is stored before (or with) its scores, never after, so a kill -9 loses at most what is in flight or
queued for the writer, and an interrupted run loses no stored episode's verdicts: ``--resume`` judges every stored
episode that lacks a verdict of the run's score set (or whose verdict is a judge fault).

``--resume`` also plays again every episode whose newest record ended in a provider fault (an outage is no verdict
on the agent): the new record is appended and supersedes the old one (``sim.store.superseded``), and the summary
and reports count the newest record only.
"""

from __future__ import annotations

import asyncio
from array import array
from collections.abc import Callable, Iterator

from judges.run.run_summary import RunSummary
from sim.core import EpisodeId, EpisodeResult, Judge, Score
from sim.core.files import write_text_atomic
from sim.episode.loop import EpisodeSpec
from sim.judging.judge_set import judges_in_thread, run_summary
from sim.judging.queue import JudgeQueue
from sim.report.html import write_html_report
from sim.report.markdown import markdown_summary
from sim.run.event_loop import settled
from sim.run.executors.base import EpisodeDone, Executor, Finished, JudgedEpisode
from sim.run.plan import Plan
from sim.run.prepare import PreparedRun, manifest, point_latest
from sim.run.resume_identity import note_endpoint
from sim.store.run_store import EPISODES, RunStore, StoreError, parse_line, read_lines
from sim.store.superseded import EpisodeStatus
from sim.store.writer import StoreWriter

OnStart = Callable[[int, int], None]
OnEpisode = Callable[[EpisodeDone], None]
OnWarning = Callable[[str], None]
"""Told each of the run's warnings (``PreparedRun.warnings``) before its first episode."""
"""Called once per episode of this run, once it is stored with its scores (not for those resume judges again)."""


class PlanIndex:
    """Where an episode id sits in the plan, so per-episode marks cost a slot of an array, not a string."""

    def __init__(self, plan: Plan) -> None:
        self._tasks = {u.id: i for i, u in enumerate(plan.units)}
        if len(self._tasks) != len(plan.units):
            raise ValueError("the plan holds a unit id twice")  # positions would collide: resume would skip episodes
        self._trials = plan.trials
        self.size = len(plan)

    def position(self, episode_id: str) -> int | None:
        parsed = EpisodeId.find(episode_id)
        index = None if parsed is None else self._tasks.get(parsed.unit)
        if parsed is None or index is None or parsed.trial >= self._trials:
            return None
        return parsed.trial * len(self._tasks) + index


class EpisodeMarks:
    """A small unsigned number per episode of the plan (a dict for ids outside it: a world changed since)."""

    def __init__(self, index: PlanIndex, bits: int = 8) -> None:
        code = next((c for c in "BHIQ" if array(c).itemsize * 8 >= bits), None)
        if code is None:
            raise ValueError(f"at most 64 bits per episode, not {bits}")
        self._index = index
        self._marks = array(code, bytes(array(code).itemsize * index.size))
        self._other: dict[str, int] = {}

    def get(self, episode_id: str) -> int:
        pos = self._index.position(episode_id)
        return self._other.get(episode_id, 0) if pos is None else self._marks[pos]

    def set(self, episode_id: str, value: int) -> None:
        pos = self._index.position(episode_id)
        if pos is None:
            self._other[episode_id] = value
        else:
            self._marks[pos] = value


def verdicts_present(store: RunStore, score_set: str, judges: list[Judge], index: PlanIndex) -> EpisodeMarks:
    """Per stored episode, a bit per judge whose newest verdict in ``score_set`` is not a judge fault."""
    bit = {j.name: 1 << i for i, j in enumerate(judges)}
    present = EpisodeMarks(index, bits=max(1, len(judges)))
    for s in store.iter_scores(score_set):
        if (b := bit.get(s.judge)) is not None:
            marks = present.get(s.episode_id)
            present.set(s.episode_id, marks & ~b if s.judge_fault else marks | b)
    return present


async def judge_stored(
    store: RunStore, score_set: str, judges: list[Judge], index: PlanIndex, queue: JudgeQueue
) -> tuple[EpisodeMarks, int]:
    """Marks of the stored episodes this run need not play again (and how many): each one that a crash or Ctrl-C
    left without a verdict of this score set, or whose verdict is a judge fault, is queued for the judges it
    lacks. An episode whose newest record ended in a provider fault is left unmarked: it is played again.

    Streams: ids are read from a light view of each line; the full trace is parsed only to be judged."""
    present = verdicts_present(store, score_set, judges, index)
    done, count = EpisodeMarks(index, bits=1), 0
    path = store.root / EPISODES
    superseded = store.superseded()
    replayed: set[str] = set()  # played again after a provider fault: their verdicts may be the old record's
    every_judge = (1 << len(judges)) - 1
    for lineno, raw in read_lines(path):
        status = parse_line(path, lineno, raw, EpisodeStatus)
        episode_id = status.episode_id
        if lineno in superseded:
            replayed.add(episode_id)  # scores do not say which record they judged: judge the newest again
            continue
        if status.retried_on_resume:
            continue
        if not done.get(episode_id):
            done.set(episode_id, 1)
            count += 1
        marks = 0 if episode_id in replayed else present.get(episode_id)
        replayed.discard(episode_id)
        missing = [j for i, j in enumerate(judges) if not marks & (1 << i)]
        if missing:
            present.set(episode_id, every_judge)  # a duplicate line is not judged twice
            await queue.put(store.parse_episode(lineno, raw), missing, fresh=False)
    return done, count


def todo(plan: Plan, done: EpisodeMarks) -> Iterator[EpisodeSpec]:
    return (spec for spec in plan if not done.get(spec.episode_id))


async def drive(
    run: PreparedRun,
    judges: list[Judge],
    executor: Executor,
    on_start: OnStart | None = None,
    on_episode: OnEpisode | None = None,
    on_warning: OnWarning | None = None,
) -> tuple[RunStore, RunSummary]:
    """Run every planned episode not yet stored on ``executor``; judge, store, summarise. Returns the store and
    the summary. On an error or cancellation what was queued for the store is made durable and summarised
    before the error propagates."""
    if on_warning is not None:
        for warning in run.warnings:
            on_warning(warning)
    store = run.resumed or RunStore.create(run.root, manifest(run.config, run.run_id, len(run.plan), run.plan.strata))
    failure: BaseException | None = None
    try:
        point_latest(store)
        if run.resumed is not None:
            note_endpoint(store, run.config)
        if store.newest_score_set() != run.score_set:
            store.add_score_set(run.score_set, run.judge_settings, "run")
        try:
            await _run(run, store, judges, executor, on_start, on_episode)
        except BaseException as exc:
            failure = exc
            raise
        finally:
            summary = await asyncio.to_thread(_summarise, store, run.score_set, len(run.plan), failure)
    finally:
        store.close()  # the summary is written: another process may write this run now
    return store, summary


async def _run(
    run: PreparedRun,
    store: RunStore,
    judges: list[Judge],
    executor: Executor,
    on_start: OnStart | None,
    on_episode: OnEpisode | None,
) -> None:
    slots = executor.concurrency
    async with StoreWriter(store, max_pending=max(8192, 2 * slots)) as writer:

        async def on_scored(result: EpisodeResult, scores: list[Score], fresh: bool) -> None:
            await writer.append_scores(scores)
            if fresh and on_episode:
                on_episode(EpisodeDone.of(result, scores))

        in_thread = judges_in_thread(run.config)
        async with JudgeQueue(judges, run.score_set, on_scored, in_thread=in_thread, max_queued=max(64, slots)) as jq:
            index = PlanIndex(run.plan)
            done, stored = await judge_stored(store, run.score_set, judges, index, jq)
            if on_start:
                on_start(len(run.plan), stored)

            async def sink(finished: Finished) -> None:
                if isinstance(finished, JudgedEpisode):  # stored as it came: the driver never parses the trace
                    await writer.append_judged(finished.episode_line, finished.score_lines, finished.toolkit)
                    if on_episode:
                        on_episode(finished.done)
                    return
                await writer.append_episode(finished)  # queued before its scores: durable before them
                await jq.put(finished)

            settled()
            await executor.run(todo(run.plan, done), sink)


def _summarise(store: RunStore, score_set: str, planned: int, failure: BaseException | None) -> RunSummary:
    summary = run_summary(store, score_set, planned)
    try:
        store.write_summary(summary.as_dict())
        write_text_atomic(store.root / "summary.md", markdown_summary(summary))
        write_html_report(store.root, summary, score_set)
    except OSError as exc:
        if failure is None:  # else the run's own error (often the same full disk) is the one to report
            raise StoreError(f"{store.root}: cannot write the summary: {exc.strerror or exc}") from exc
    return summary
