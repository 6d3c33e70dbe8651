"""Judging where the episode played (a worker process, a Ray actor): the store's lines a worker sends are the bytes
the driver would have written after judging the same trace itself, and the driver stores them unparsed. Judges that
ask a model stay in the driver, and the workers then send traces, as before."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import sim.run.runner
from sim.config.run_config import RunConfig
from sim.core import EpisodeResult
from sim.episode.loop import EpisodeSpec
from sim.judging.judge_set import build_judges, judge, judge_names
from sim.run.driver import drive
from sim.run.executors import EpisodeDone, JudgedEpisode, ResultSink
from sim.run.executors.episode_worker import EpisodeWorker, judges_in_workers
from sim.run.executors.worker_share import worker_configs
from sim.run.prepare import prepare
from sim.store.episode_json import decode_episode, encode_episode
from sim.store.toolkits import TOOLKITS, StoredToolkits
from sim.store.writer import store_line
from tests.support.live_files import json_lines as lines


def config(out: Path, **kw: Any) -> RunConfig:
    return RunConfig.model_validate({"out": out, "run_id": "r", "cache": "off", **kw})


@pytest.mark.parametrize(
    "agent, stressors",
    [("oracle", []), ("naive", ["all"]), ("null", [])],
    ids=["oracle", "naive under every stressor", "null"],
)
async def test_a_worker_judges_and_encodes_exactly_as_the_driver_would(
    tmp_path: Path, agent: str, stressors: list[str]
) -> None:
    cfg = config(tmp_path, agent=agent, stressors=stressors, trials=2)
    run = await prepare(cfg)
    worker = EpisodeWorker(worker_configs(cfg, 1)[0].model_dump_json(), None, run.score_set)
    await worker.open()
    judges = build_judges(cfg)
    checked = 0
    toolkits = StoredToolkits(tmp_path)
    try:
        for spec in run.plan:
            judged = await worker.play_judged(spec.model_dump_json())
            assert judged.toolkit is not None
            with (tmp_path / TOOLKITS).open("ab") as f:
                f.write(judged.toolkit.line)
            trace = decode_episode(judged.episode_line, EpisodeResult, toolkits)
            scores = await judge(trace, judges, run.score_set)  # what the driver did with the trace
            assert (judged.episode_line, judged.toolkit) == (encode_episode(trace).line, encode_episode(trace).toolkit)
            assert judged.score_lines == tuple(store_line(s) for s in scores)
            assert judged.done == EpisodeDone.of(trace, scores)
            checked += 1
    finally:
        await worker.close()
    assert checked == len(run.plan) >= 20 and len(judges) == len(judge_names(cfg))


class JudgedLines:
    """An executor whose episodes come judged, as lines: the driver must store them as they are."""

    def __init__(self, items: list[JudgedEpisode]) -> None:
        self.items = items

    @property
    def concurrency(self) -> int:
        return 1

    async def run(self, todo: Iterator[EpisodeSpec], sink: ResultSink) -> None:
        for spec, item in zip(todo, self.items, strict=False):
            assert spec.episode_id == item.done.episode_id
            await sink(item)


async def test_the_driver_stores_judged_lines_as_they_came_and_reports_each_once(tmp_path: Path) -> None:
    cfg = config(tmp_path, agent="naive", stressors=["all"])
    run = await prepare(cfg)
    worker = EpisodeWorker(worker_configs(cfg, 1)[0].model_dump_json(), None, run.score_set)
    await worker.open()
    try:
        items = [await worker.play_judged(spec.model_dump_json()) for spec in run.plan]
    finally:
        await worker.close()
    seen: list[EpisodeDone] = []
    store, summary = await drive(run, build_judges(cfg), JudgedLines(items), on_episode=seen.append)
    assert (store.root / "episodes.jsonl").read_bytes() == b"".join(i.episode_line for i in items)
    toolkits = {i.toolkit.line: None for i in items if i.toolkit is not None}  # each once, in the order first named
    assert (store.root / TOOLKITS).read_bytes() == b"".join(toolkits)
    assert (store.root / "scores.jsonl").read_bytes() == b"".join(line for i in items for line in i.score_lines)
    assert seen == [i.done for i in items]
    assert summary.episodes == len(run.plan) == 10


def test_judges_that_ask_a_model_or_need_the_judge_thread_stay_in_the_driver() -> None:
    assert judges_in_workers(RunConfig(agent="oracle"))
    assert not judges_in_workers(RunConfig(agent="oracle", error_judge="llm", judge_model="openai-chat:m@http://x/v1"))
    assert not judges_in_workers(RunConfig(agent="oracle", answer_judge="llm", judge_model="openai-chat:m@http://x/v1"))


@pytest.mark.slow
async def test_with_a_judge_model_the_workers_send_traces_and_the_driver_judges_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.sim.run.test_local_workers import SCRIPTED, traces
    from tests.support.mockllm_server import mock_llm_server

    score_sets: list[str | None] = []
    real = sim.run.runner.local_workers

    def spy(cfg: RunConfig, root: Path, workers: int, score_set: str | None = None) -> Any:
        score_sets.append(score_set)
        return real(cfg, root, workers, score_set)

    monkeypatch.setattr(sim.run.runner, "local_workers", spy)
    with mock_llm_server(SCRIPTED) as srv:
        agent = f"openai-chat:mock-model@{srv.url}"
        settings = {"agent": agent, "answer_judge": "llm", "judge_model": agent, "concurrency": 4}
        _, one = await sim.run.runner.execute(config(tmp_path / "one", **settings, workers=1))
        _, two = await sim.run.runner.execute(config(tmp_path / "two", **settings, workers=2))
    assert score_sets == [None]  # the driver judged the two workers' traces
    assert traces(tmp_path / "two" / "r") == traces(tmp_path / "one" / "r")
    assert one.episodes == two.episodes == 10 and one.judged == two.judged
    assert len(lines(tmp_path / "two" / "r" / "scores.jsonl")) == 10 * len(judge_names(config(tmp_path, **settings)))
