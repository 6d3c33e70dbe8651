"""A run killed with SIGKILL mid-way resumes and ends with every episode exactly once."""

from __future__ import annotations

import json
import os
import signal
from collections import Counter
from pathlib import Path

import pytest

from sim.judging.judge_set import judge_names
from tests.support.mockllm_server import mock_llm_server
from tests.support.run_process import SLOW_MOCK, lines, run_args, squall_process, start_and_wait

pytestmark = pytest.mark.reliability  # issue 25's suite


@pytest.mark.slow
def test_sigkill_then_resume_finds_every_episode_once(tmp_path: Path) -> None:
    episodes = tmp_path / "killed" / "episodes.jsonl"
    with mock_llm_server(SLOW_MOCK) as srv:
        args = run_args(srv.url, tmp_path, "killed")
        proc = start_and_wait(args, episodes, at_least=3)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        done_before = len(lines(episodes))
        planned = json.loads((tmp_path / "killed" / "manifest.json").read_text())["planned_episodes"]
        assert 3 <= done_before < planned

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
    summary = json.loads((tmp_path / "killed" / "summary.json").read_text())
    assert summary["episodes"] == planned


def long_run(url: str, out: Path, run_id: str) -> list[str]:
    """A run far longer than the test needs (100 episodes): on a loaded machine the test may not be scheduled for
    seconds after the run stored its first episodes, and a run that has finished meanwhile ignores the signal."""
    return [*run_args(url, out, run_id), "--trials", "10"]


@pytest.mark.parametrize(("sent", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.slow
def test_ctrl_c_or_sigterm_keeps_finished_episodes_and_summarises(tmp_path: Path, sent: int, code: int) -> None:
    episodes = tmp_path / "int" / "episodes.jsonl"
    with mock_llm_server(SLOW_MOCK) as srv:
        proc = start_and_wait(long_run(srv.url, tmp_path, "int"), episodes, at_least=2)
        os.kill(proc.pid, sent)
        _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == code, stderr.decode()
    assert "--resume" in stderr.decode()
    done = lines(episodes)
    summary = json.loads((tmp_path / "int" / "summary.json").read_text())
    assert summary["episodes"] == len(done) >= 2  # what finished is kept and summarised
    assert len(done) < summary["planned_episodes"]  # cut short, not finished before the signal landed
    assert all(json.loads(line)["termination"] == "completed" for line in done)
