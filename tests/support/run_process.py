"""``python -m sim`` as a separate process, for tests that kill and resume runs."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.support.live_files import complete_lines as lines  # the run may be mid-line
from tests.support.mockllm_server import REPO_ROOT

TRIALS = 2


def squall_process(args: list[str]) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "sim", *args], cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )


# Slow, real HTTP agent: each model request takes ~0.15 s, so a run is still going when interrupted.
SLOW_MOCK = {"policy": {"kind": "first_tool"}, "latency_s": 0.15}


def run_args(url: str, out: Path, run_id: str) -> list[str]:
    agent = f"openai-chat:mock-model@{url}"
    return ["run", "--agent", agent, "--trials", str(TRIALS), "--concurrency", "2", "--out", str(out),
            "--run-id", run_id, "-q"]  # fmt: skip


def start_and_wait(args: list[str], episodes: Path, at_least: int) -> subprocess.Popen[bytes]:
    """Start a run and return once it has stored ``at_least`` episodes (still running)."""
    proc = squall_process(args)
    deadline = time.monotonic() + 60
    while len(lines(episodes)) < at_least and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
    return proc
