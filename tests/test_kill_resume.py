"""A run killed with SIGKILL mid-way resumes and ends with every episode exactly once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from sim.judging.judge_set import judge_names
from tests.mockllm_server import REPO_ROOT, mock_llm_server

TRIALS = 2


def squall(args: list[str]) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "sim", *args], cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


# Slow, real HTTP agent: each model request takes ~0.15 s, so a run is still going when interrupted.
SLOW_MOCK = {"policy": {"kind": "first_tool"}, "latency_s": 0.15}


def run_args(url: str, out: Path, run_id: str) -> list[str]:
    agent = f"openai-chat:mock-model@{url}"
    return ["run", "--agent", agent, "--trials", str(TRIALS), "--concurrency", "2", "--out", str(out),
            "--run-id", run_id, "-q"]  # fmt: skip


def start_and_wait(args: list[str], episodes: Path, at_least: int) -> subprocess.Popen[bytes]:
    """Start a run and return once it has stored ``at_least`` episodes (still running)."""
    proc = squall(args)
    deadline = time.monotonic() + 60
    while len(lines(episodes)) < at_least and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
    return proc


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

        resumed = squall([*args, "--resume"])
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


def test_ctrl_c_keeps_finished_episodes_and_exits_130(tmp_path: Path) -> None:
    episodes = tmp_path / "int" / "episodes.jsonl"
    with mock_llm_server(SLOW_MOCK) as srv:
        proc = start_and_wait(run_args(srv.url, tmp_path, "int"), episodes, at_least=2)
        os.kill(proc.pid, signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr.decode()
    assert "--resume" in stderr.decode()
    done = lines(episodes)
    summary = json.loads((tmp_path / "int" / "summary.json").read_text())
    assert summary["episodes"] == len(done) >= 2  # what finished is kept and summarised
    assert all(json.loads(line)["termination"] == "completed" for line in done)
