"""``--workers N``: episodes in local worker processes give the results one process gives, and a driver killed
with SIGKILL while its workers play leaves no worker behind and resumes with every episode exactly once."""

from __future__ import annotations

import json
import os
import signal
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from sim.config.run_config import RunConfig
from sim.judging.judge_set import judge_names
from sim.run.executors.local_workers import default_workers
from sim.run.runner import execute
from tests.support.cli import assert_clean_failure, squall
from tests.support.mockllm_server import mock_llm_server
from tests.support.run_process import SLOW_MOCK, lines, run_args, squall_process, start_and_wait

CALL = lambda name, args: {"name": name, "arguments": args}  # noqa: E731
# Gets the first turn of sh-001 right and declines everything else: mixed, exact scores.
SCRIPTED = {
    "policy": {
        "kind": "script",
        "steps": [{"text": "I cannot help with that."}],
        "by_user": {
            "living room ceiling light": [
                {"tool_calls": [CALL("set_power", {"device_id": "living_ceiling_light", "on": True})]},
                {"tool_calls": [CALL("set_brightness", {"device_id": "living_ceiling_light", "level": 50})]},
                {"text": "Done."},
            ]
        },
    }
}


def config(out: Path, **kw: Any) -> RunConfig:
    return RunConfig.model_validate({"out": out, "run_id": "r", "cache": "off", "concurrency": 4, **kw})


def traces(run: Path) -> dict[str, Any]:
    """Each episode's events and verdicts, without what depends on timing."""
    out: dict[str, Any] = {}
    for line in lines(run / "episodes.jsonl"):
        ep = json.loads(line)
        events = [{k: e.get(k) for k in ("kind", "turn", "step", "call", "result", "content")} for e in ep["events"]]
        out[ep["episode_id"]] = {"events": events, "termination": ep["termination"], "seed": ep["seed"]}
    for line in lines(run / "scores.jsonl"):
        s = json.loads(line)
        out[s["episode_id"]][s["judge"]] = s["value"]
    return out


def test_the_default_is_one_process_for_small_runs_and_the_cores_for_large_ones() -> None:
    agent = "openai-chat:m@http://127.0.0.1:1/v1"
    assert default_workers(RunConfig(agent=agent, concurrency=100)) == 1
    assert default_workers(RunConfig(agent=agent, concurrency=100, workers=3)) == 3
    assert default_workers(RunConfig(agent=agent, concurrency=5000)) == (os.cpu_count() or 1)


@pytest.mark.slow
async def test_two_workers_give_the_results_of_one_process(tmp_path: Path) -> None:
    with mock_llm_server(SCRIPTED) as srv:
        agent = f"openai-chat:mock-model@{srv.url}"
        _, one = await execute(config(tmp_path / "one", agent=agent, trials=2, workers=1))
        _, two = await execute(config(tmp_path / "two", agent=agent, trials=2, workers=2))
    assert traces(tmp_path / "two" / "r") == traces(tmp_path / "one" / "r")
    # Judged in the workers, judged in the driver: the same score lines, byte for byte.
    scores = {run: sorted((tmp_path / run / "r" / "scores.jsonl").read_bytes().splitlines()) for run in ("one", "two")}
    assert scores["two"] == scores["one"] and len(scores["one"]) == 20 * len(judge_names())
    assert one.episodes == two.episodes == 20 and one.judged == two.judged
    assert 0 < two.judged["core_api_accuracy"] < 1 and two.usage.requests == one.usage.requests


def test_workers_with_the_ray_backend_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    code, _, err = squall("run", "--agent", "oracle", "--backend", "ray", "--workers", "2", "--out", str(tmp_path))
    assert_clean_failure(code, err, "--workers")
    assert not any(tmp_path.iterdir())


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def gone(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return True
    return state == "Z"


@pytest.mark.slow
@pytest.mark.reliability
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads worker processes from /proc")
def test_sigkill_of_the_driver_with_workers_running_then_resume_finds_every_episode_once(tmp_path: Path) -> None:
    episodes = tmp_path / "killed" / "episodes.jsonl"
    with mock_llm_server(SLOW_MOCK) as srv:
        args = [*run_args(srv.url, tmp_path, "killed"), "--workers", "2"]
        proc = start_and_wait(args, episodes, at_least=3)
        workers = children(proc.pid)
        assert len(workers) >= 2
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        done_before = len(lines(episodes))
        planned = json.loads((tmp_path / "killed" / "manifest.json").read_text())["planned_episodes"]
        assert 3 <= done_before < planned
        deadline = time.monotonic() + 120  # a safety net for a stuck test, not a timing claim
        while not all(gone(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert all(gone(w) for w in workers), "a worker outlived its driver"

        resumed = squall_process([*args, "--resume"])
        _, stderr = resumed.communicate(timeout=300)
        assert resumed.returncode == 0, stderr.decode()

    ids = Counter(json.loads(line)["episode_id"] for line in lines(episodes))
    assert len(ids) == planned and set(ids.values()) == {1}
    scores = Counter(
        (json.loads(line)["episode_id"], json.loads(line)["judge"])
        for line in lines(tmp_path / "killed" / "scores.jsonl")
    )
    assert len(scores) == len(judge_names()) * planned and set(scores.values()) == {1}


def test_bench_reports_one_and_n_workers_side_by_side() -> None:
    from sim.bench.workers import run_workers

    ran: list[int] = []

    def arm(workers: int) -> dict[str, Any]:
        ran.append(workers)
        return {"achieved": 10.0 * (1 + 0.5 * (workers - 1))}

    report = run_workers(2, arm)
    assert ran == [1, 2] and report["n"] == 2 and report["scaling"] == 1.5
    assert set(report) == {"1", "2", "scaling", "n"}
    assert run_workers(2, arm, {"achieved": 20.0})["scaling"] == 2.0 and ran == [1, 2, 1]  # N's arm not rerun
