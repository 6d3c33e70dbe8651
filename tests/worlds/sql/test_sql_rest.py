"""The REST style of SQL worlds end to end: `squall serve` in a child process (killed by PID), the oracle over
HTTP solving what it solves in-process with the same tool results, and the server stopping by itself."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sim.cli.app import app
from tests.support.rest_world import served

runner = CliRunner()


@pytest.fixture(autouse=True)
def runtime_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where `squall serve` leaves its token for the harness: this test's own, for the server and the harness."""
    folder = tmp_path / "runtime"
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    return folder


def run_oracle(out: Path, world: str) -> tuple[dict[str, Any], list[list[Any]]]:
    result = runner.invoke(app, ["run", "--agent", "oracle", "--world", world, "--out", str(out), "--run-id", "r"])
    assert result.exit_code == 0, result.output
    summary: dict[str, Any] = json.loads((out / "r" / "summary.json").read_text())
    episodes = [json.loads(line) for line in (out / "r" / "episodes.jsonl").read_text().splitlines()]
    episodes.sort(key=lambda e: str(e["episode_id"]))
    results = [[e["result"] for e in ep["events"] if e.get("kind") == "tool_result"] for ep in episodes]
    return summary, results


def test_oracle_over_http_gets_the_in_process_results(tmp_path: Path) -> None:
    local_summary, local_results = run_oracle(tmp_path / "local", "sql_sample")
    with served(tmp_path / "serve", "--idle-timeout", "60") as (_, port):
        http_summary, http_results = run_oracle(tmp_path / "http", f"http://127.0.0.1:{port}")
    assert http_summary["conversation_success"] == local_summary["conversation_success"] == 1.0
    assert sum(len(r) for r in http_results) >= 20
    assert http_results == local_results


def test_serve_stops_when_idle_and_on_sigterm(tmp_path: Path) -> None:
    with served(tmp_path / "idle", "--idle-timeout", "1") as (proc, _):
        assert proc.wait(timeout=60) == 0  # it stops by itself; the reason is in its last words
        assert proc.stderr is not None and b"stopped (idle)" in proc.stderr.read()
    with served(tmp_path / "term") as (proc, _):
        os.kill(proc.pid, signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
        assert proc.stderr is not None and b"stopped (signal)" in proc.stderr.read()


def test_serve_refuses_a_world_it_cannot_serve() -> None:
    result = runner.invoke(app, ["serve", "--world", "smart_home"])
    assert result.exit_code == 2
    assert "serves SQL worlds" in result.output + (result.stderr if result.stderr_bytes else "")


def test_an_unreachable_server_is_a_world_load_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", "--agent", "oracle", "--world", "http://127.0.0.1:9", "--out", str(tmp_path)])
    assert result.exit_code != 0
    assert "cannot read the served world" in result.output + (result.stderr if result.stderr_bytes else "")


@pytest.mark.reliability
def test_serve_refuses_to_start_where_it_cannot_leave_its_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(not_a_folder))
    result = runner.invoke(app, ["serve", "--world", "sql_sample", "--idle-timeout", "1"])
    assert result.exit_code == 2
    output = result.output + (result.stderr if result.stderr_bytes else "")
    assert "cannot leave the server's token there" in output and "Traceback" not in output
