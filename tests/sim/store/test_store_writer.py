"""The store writer: batched write + fsync off the loop, episodes durable before their scores, bounded, and a
failed write is an error everyone waiting sees — never a hang."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from pathlib import Path

import pytest

import sim.store.writer
from sim.core import EpisodeResult, Score
from sim.store.episode_json import encode_episode
from sim.store.run_store import EPISODES, SCORES, RunStore, StoreError
from sim.store.toolkits import TOOLKITS
from sim.store.writer import StoreWriteError, StoreWriter, store_line
from tests.support.episodes import disk_full, result, with_toolkit


def scores_of(r: EpisodeResult) -> list[Score]:
    return [Score(episode_id=r.episode_id, task_id=r.task_id, trial=0, judge=j, value=1.0) for j in ("a", "b")]


def ids(path: Path) -> list[str]:
    return [json.loads(line)["episode_id"] for line in path.read_text().splitlines()] if path.exists() else []


def shas(root: Path) -> list[str]:
    path = root / TOOLKITS
    return [json.loads(line)["sha"] for line in path.read_text().splitlines()] if path.exists() else []


async def test_batches_many_records_per_fsync_and_keeps_every_line_whole(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "r", {"config_hash": "h"})
    async with StoreWriter(store) as writer:
        for i in range(300):
            await writer.append_episode(result(i))
            await writer.append_scores(scores_of(result(i)))
        await writer.flush()
        assert writer.pending == 0
    assert ids(tmp_path / "r" / EPISODES) == [f"t{i}#0" for i in range(300)]
    assert len(store.scores()) == 600
    assert writer.stats.records == 901 and writer.stats.fsyncs < 900  # piled-up records share an fsync
    assert len(shas(tmp_path / "r")) == 1  # the episodes' one toolkit (empty), stored once
    assert [r.episode_id for r in store.iter_episodes()] == ids(tmp_path / "r" / EPISODES)


@pytest.mark.parametrize("encoded", [False, True], ids=["records", "lines encoded elsewhere"])
async def test_an_episode_is_durable_before_its_scores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, encoded: bool
) -> None:
    """At every fsync of scores.jsonl, each episode it scores is already in episodes.jsonl (fsync'd before); at every
    fsync of episodes.jsonl, each toolkit an episode names is already in toolkits.jsonl."""
    root = tmp_path / "r"
    store = RunStore.create(root, {"config_hash": "h"})
    real_fsync = os.fsync
    violations: list[str] = []

    def checking_fsync(fd: int) -> None:
        real_fsync(fd)
        if os.readlink(f"/proc/self/fd/{fd}").endswith(SCORES):
            violations.extend(set(ids(root / SCORES)) - set(ids(root / EPISODES)))
        if os.readlink(f"/proc/self/fd/{fd}").endswith(EPISODES):
            named = {json.loads(line)["toolkit_ref"] for line in (root / EPISODES).read_text().splitlines()}
            violations.extend(named - set(shas(root)))

    monkeypatch.setattr(sim.store.writer.os, "fsync", checking_fsync)
    async with StoreWriter(store) as writer:
        for i in range(200):
            r = with_toolkit(i, i % 3)
            if encoded:
                encoded_episode = encode_episode(r)
                score_lines = [store_line(s) for s in scores_of(r)]
                await writer.append_judged(encoded_episode.line, score_lines, encoded_episode.toolkit)
            else:
                await writer.append_episode(r)
                await writer.append_scores(scores_of(r))
            if i % 7 == 0:
                await asyncio.sleep(0.001)  # let batches of every size form
    assert violations == []
    assert len(ids(root / SCORES)) == 400
    assert len(shas(root)) == 3  # each toolkit stored once
    assert [len(ep.tools) for ep in store.iter_episodes()][:4] == [0, 1, 2, 0]


async def test_lines_encoded_elsewhere_are_stored_byte_for_byte_as_the_writer_would(tmp_path: Path) -> None:
    stores = {name: RunStore.create(tmp_path / name, {"config_hash": "h"}) for name in ("records", "lines")}
    odd = "naïve “quoted”\n\ud800"  # a lone surrogate: the record is stored whole, its tools inline
    episodes = [with_toolkit(i, i % 3).model_copy(update={"instructions": odd if i % 4 else ""}) for i in range(20)]
    async with StoreWriter(stores["records"]) as writer:
        for r in episodes:
            await writer.append_episode(r)
            await writer.append_scores(scores_of(r))
    async with StoreWriter(stores["lines"], max_pending=3) as writer:  # an episode and its scores wait for room
        for r in episodes:
            encoded = encode_episode(r)
            await writer.append_judged(encoded.line, [store_line(s) for s in scores_of(r)], encoded.toolkit)
        await writer.append_judged(encode_episode(result(99)).line, [])  # no scores (no judges), a stored toolkit
    for name in (TOOLKITS, EPISODES, SCORES):
        assert (tmp_path / "lines" / name).read_bytes().startswith((tmp_path / "records" / name).read_bytes())
    assert ids(tmp_path / "lines" / EPISODES)[-1] == "t99#0" and len(ids(tmp_path / "lines" / SCORES)) == 40


async def test_a_resumed_run_stores_no_toolkit_twice(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "r", {"config_hash": "h"})
    async with StoreWriter(store) as writer:
        await writer.append_episode(with_toolkit(0, 2))
    store.close()
    store = RunStore.resume(tmp_path / "r", "h")
    async with StoreWriter(store) as writer:
        await writer.append_episode(with_toolkit(1, 2))
        await writer.append_episode(with_toolkit(2, 1))
    assert len(shas(tmp_path / "r")) == 2
    assert [[t.name for t in ep.tools] for ep in store.iter_episodes()] == [["f0", "f1"], ["f0", "f1"], ["f0"]]


@pytest.mark.parametrize("bad", [b'{"a": 1}', b'{"a": 1}\n{"b": 2}\n'], ids=["no newline", "two lines"])
async def test_a_record_that_is_not_one_line_is_refused_and_nothing_is_written(tmp_path: Path, bad: bytes) -> None:
    store = RunStore.create(tmp_path / "r", {"config_hash": "h"})
    async with StoreWriter(store) as writer:
        with pytest.raises(ValueError, match="one store line"):
            await writer.append_judged(encode_episode(result(0)).line, [bad])
    assert ids(tmp_path / "r" / EPISODES) == [] and ids(tmp_path / "r" / SCORES) == []


async def test_appends_never_block_the_loop_on_fsync(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = RunStore.create(tmp_path / "r", {"config_hash": "h"})
    real_fsync = os.fsync
    fsync_threads: set[int] = set()

    def slow_fsync(fd: int) -> None:
        fsync_threads.add(threading.get_ident())
        time.sleep(0.05)  # a busy disk
        real_fsync(fd)

    monkeypatch.setattr(sim.store.writer.os, "fsync", slow_fsync)
    async with StoreWriter(store) as writer:
        started = time.perf_counter()
        for i in range(50):
            await writer.append_episode(result(i))
        queued_in = time.perf_counter() - started
    assert queued_in < 0.05  # 50 appends queued in less than one fsync
    assert threading.get_ident() not in fsync_threads
    assert len(ids(tmp_path / "r" / EPISODES)) == 50


async def test_backpressure_bounds_what_waits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = RunStore.create(tmp_path / "r", {"config_hash": "h"})
    real_fsync = os.fsync

    def slow_fsync(fd: int) -> None:
        time.sleep(0.01)
        real_fsync(fd)

    monkeypatch.setattr(sim.store.writer.os, "fsync", slow_fsync)
    most = 0
    async with StoreWriter(store, max_pending=4) as writer:
        for i in range(40):
            await writer.append_episode(result(i))
            most = max(most, writer.pending)
    assert most <= 4
    assert ids(tmp_path / "r" / EPISODES) == [f"t{i}#0" for i in range(40)]


async def test_a_failed_write_is_raised_not_hung(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = RunStore.create(tmp_path / "r", {"config_hash": "h"})
    monkeypatch.setattr(sim.store.writer, "append_all", disk_full)
    writer = StoreWriter(store)
    with pytest.raises(StoreWriteError, match="No space left on device"):  # leaving the block raises it too
        async with writer:
            await writer.append_episode(result(0))  # queued: the failure comes from the thread
            with pytest.raises(StoreWriteError, match="No space left on device"):
                await asyncio.wait_for(writer.flush(), 5)
            with pytest.raises(StoreWriteError):
                await writer.append_episode(result(1))
    assert isinstance(StoreWriteError("x"), StoreError)  # the CLI reports it as one line
    assert ids(tmp_path / "r" / EPISODES) == []


async def test_a_producer_waiting_for_room_sees_the_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = RunStore.create(tmp_path / "r", {"config_hash": "h"})
    gate = threading.Event()

    def stuck_then_full(fd: int, data: bytes) -> None:
        gate.wait(5)
        disk_full(fd, data)

    monkeypatch.setattr(sim.store.writer, "append_all", stuck_then_full)

    async def produce(writer: StoreWriter) -> None:
        for i in range(10):
            await writer.append_episode(result(i))

    with pytest.raises(StoreWriteError):
        async with StoreWriter(store, max_pending=2) as writer:
            producer = asyncio.create_task(produce(writer))
            await asyncio.sleep(0.05)
            assert not producer.done() and writer.pending == 2  # waiting for room
            gate.set()
            await asyncio.wait_for(producer, 5)


@pytest.mark.parametrize(
    ("content", "kept"),
    [
        (b"a\nbb\nccc", b"a\nbb\n"),
        (b"abc", b""),
        (b"a\n", b"a\n"),
        (b"x" * 10 + b"\n" + b"y" * 25, b"x" * 10 + b"\n"),
        (b"\n" + b"y" * 9, b"\n"),
    ],
)
def test_resume_cuts_a_partial_tail_reading_only_the_tail(tmp_path: Path, content: bytes, kept: bytes) -> None:
    from sim.store.run_store import _cut_partial_tail

    path = tmp_path / "f.jsonl"
    path.write_bytes(content)
    _cut_partial_tail(path, chunk=3)  # tiny chunks: the backwards scan crosses chunk borders
    assert path.read_bytes() == kept
