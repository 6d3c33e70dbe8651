"""The driver around any executor: judging in its own queue (slots never wait for a judge), judges off the loop,
Ctrl-C keeps stored-but-unjudged episodes for resume to judge, a failed store write stops the run with one clear
error, and an executor whose episodes run elsewhere (the shape of Ray) needs nothing else from the driver."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import sim.judging.judge_set
import sim.run.driver
import sim.run.runner
import sim.store.writer
from sim.config.run_config import RunConfig
from sim.core import EpisodeResult, Score
from sim.episode.loop import EpisodeSpec
from sim.judging.judge_set import build_judges, judge_names
from sim.run.driver import EpisodeMarks, PlanIndex, drive
from sim.run.executors import Executor, InProcessExecutor, ResultSink
from sim.run.prepare import prepare
from sim.run.runner import episode_session, execute
from sim.store.writer import StoreWriteError
from tests.support.cli import squall
from tests.support.episodes import disk_full
from tests.support.live_files import json_lines as lines


def config(tmp_path: Path, **kw: Any) -> RunConfig:
    return RunConfig.model_validate({"agent": "oracle", "out": tmp_path, "run_id": "r", "cache": "off", **kw})


class SlowJudge:
    name = "conversation_success"

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s

    async def score(self, result: EpisodeResult) -> Score:
        await asyncio.sleep(self.delay_s)
        return Score(episode_id=result.episode_id, task_id=result.task_id, trial=result.trial, judge=self.name, value=1)


class TimedExecutor:
    """Delegates to the in-process executor and notes when its last episode was handed over."""

    def __init__(self, inner: Executor) -> None:
        self.inner = inner
        self.judged_when_done = -1

    @property
    def concurrency(self) -> int:
        return self.inner.concurrency

    async def run(self, todo: Iterator[EpisodeSpec], sink: ResultSink) -> None:
        await self.inner.run(todo, sink)
        self.judged_when_done = len(lines(self.root / "scores.jsonl"))

    root = Path()


async def test_a_slow_judge_never_holds_an_episode_slot(tmp_path: Path) -> None:
    cfg = config(tmp_path, trials=3, concurrency=4)
    run = await prepare(cfg)
    async with episode_session(cfg, run.agent_spec, run.pack) as session:
        executor = TimedExecutor(InProcessExecutor(session.run_one, cfg.concurrency))
        executor.root = run.root
        started = time.monotonic()
        _, summary = await drive(run, [SlowJudge(0.05)], executor)
    # Every episode was produced and handed over while judging (2 workers × 50 ms each) still had most to do.
    assert executor.judged_when_done < 10
    assert summary["episodes"] == 30 and summary["conversation_success"] == 1.0
    assert time.monotonic() - started >= 30 * 0.05 / 2


async def test_cpu_judges_run_on_the_judge_thread_and_faults_stay_faults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: set[int] = set()

    class ThreadNotingJudge:
        name = "conversation_success"

        async def score(self, result: EpisodeResult) -> Score:
            seen.add(threading.get_ident())
            raise RuntimeError("boom")

    real = sim.judging.judge_set.build_judges
    monkeypatch.setattr(sim.judging.judge_set, "build_judges", lambda c, rater=None: [real(c)[0], ThreadNotingJudge()])
    monkeypatch.setattr(sim.run.driver, "judges_in_thread", lambda c: True)
    store, summary = await execute(config(tmp_path, limit=3))
    assert seen and threading.get_ident() not in seen
    faults = [s for s in store.scores() if s.judge == "conversation_success"]
    assert len(faults) == 3 and all(s.judge_fault and s.errors == ["judge:RuntimeError"] for s in faults)
    assert summary["judge_faults"] == 3 and summary["core_api_accuracy"] == 1.0


async def test_cancel_keeps_stored_unjudged_episodes_and_resume_judges_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class StuckJudge:
        name = "core_api_accuracy"

        async def score(self, result: EpisodeResult) -> Score:
            await asyncio.Event().wait()  # never answers
            raise AssertionError

    monkeypatch.setattr(sim.judging.judge_set, "build_judges", lambda c, rater=None: [StuckJudge()])
    cfg = config(tmp_path)
    run = asyncio.create_task(execute(cfg))
    episodes = tmp_path / "r" / "episodes.jsonl"
    for _ in range(12_000):  # bounded only against a hang: a loaded machine may take long
        await asyncio.sleep(0.01)
        if len(lines(episodes)) == 10:
            break
    run.cancel()  # what Ctrl-C does to the run's task
    with pytest.raises(asyncio.CancelledError):
        await run
    assert len(lines(episodes)) == 10 and lines(tmp_path / "r" / "scores.jsonl") == []
    assert json.loads((tmp_path / "r" / "summary.json").read_text())["episodes"] == 10

    monkeypatch.undo()
    started: list[tuple[int, int]] = []
    fresh: list[str] = []
    store, summary = await execute(
        config(tmp_path, resume=True), lambda p, d: started.append((p, d)), lambda done: fresh.append(done.episode_id)
    )
    assert started == [(10, 10)] and fresh == []  # nothing new ran; the stored episodes were judged
    judged = Counter((s.episode_id, s.judge) for s in store.scores())
    assert len(judged) == 10 * len(judge_names()) and set(judged.values()) == {1}
    assert summary["core_api_accuracy"] == 1.0 and summary["episodes"] == 10


async def test_a_failed_store_write_stops_the_run_with_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sim.store.writer, "append_all", disk_full)
    with pytest.raises(StoreWriteError, match="No space left on device"):
        await asyncio.wait_for(execute(config(tmp_path, trials=5)), 30)


def test_the_cli_reports_a_full_disk_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sim.store.writer, "append_all", disk_full)
    code, _, err = squall("run", "--agent", "oracle", "--out", str(tmp_path), "--run-id", "r", "-q")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "cannot write the run store: No space left on device" in " ".join(err.split())


class ThreadWorkerExecutor:
    """Episodes played on another event loop in another thread, with their own model access; only JSON crosses
    over: the shape of a Ray executor (a worker opens ``episode_session`` once, plays specs, returns traces)."""

    def __init__(self, cfg: RunConfig, run: Any, concurrency: int) -> None:
        self.cfg, self.prepared, self._concurrency = cfg, run, concurrency
        self.worker_threads: set[int] = set()

    @property
    def concurrency(self) -> int:
        return self._concurrency

    async def run(self, todo: Iterator[EpisodeSpec], sink: ResultSink) -> None:
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, daemon=True)
        thread.start()

        async def remote(coro: Any) -> Any:
            return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))

        session = episode_session(self.cfg, self.prepared.agent_spec, self.prepared.pack)
        run_one = (await remote(session.__aenter__())).run_one

        async def play(payload: str) -> str:
            self.worker_threads.add(threading.get_ident())
            return (await run_one(EpisodeSpec.model_validate_json(payload))).model_dump_json()

        async def slot() -> None:
            for spec in todo:
                await sink(EpisodeResult.model_validate_json(await remote(play(spec.model_dump_json()))))

        try:
            async with asyncio.TaskGroup() as tg:
                for _ in range(self._concurrency):
                    tg.create_task(slot())
        finally:
            await remote(session.__aexit__(None, None, None))
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            loop.close()


async def test_an_executor_running_episodes_elsewhere_needs_nothing_else(tmp_path: Path) -> None:
    local_store, local = await execute(config(tmp_path / "local", trials=2))
    cfg = config(tmp_path / "remote", trials=2, stressors=[])
    run = await prepare(cfg)
    executor = ThreadWorkerExecutor(cfg, run, concurrency=3)
    store, remote = await drive(run, build_judges(cfg), executor)
    assert executor.worker_threads and threading.get_ident() not in executor.worker_threads
    key = lambda e: (e.episode_id, e.seed, e.final_state_hash)  # noqa: E731
    assert sorted(map(key, store.iter_episodes())) == sorted(map(key, local_store.iter_episodes()))
    same = lambda s: {k: v for k, v in s.items() if k not in ("usage", "identity")}  # noqa: E731
    assert same(remote) == same(local)
    assert remote.identity and local.identity  # the same run but for when it was made
    assert remote.identity.model_copy(update={"created_at": None}) == local.identity.model_copy(
        update={"created_at": None}
    )


def test_episode_marks_follow_the_plan_and_take_strangers() -> None:
    from sim.run.plan import make_plan
    from worlds.registry import load_world

    plan = make_plan(RunConfig(agent="oracle", trials=3), load_world("smart_home"))
    index = PlanIndex(plan)
    assert [index.position(s.episode_id) for s in plan] == list(range(len(plan)))
    assert index.position("nope#0") is None and index.position("sh-001#3") is None and index.position("x") is None
    marks = EpisodeMarks(index, bits=2)
    marks.set("sh-001#2", 3)
    marks.set("gone#0", 1)
    assert marks.get("sh-001#2") == 3 and marks.get("gone#0") == 1 and marks.get("sh-002#0") == 0
