"""Issue 25, item 7: a dead endpoint for the whole run, then the endpoint back on another port and ``--resume``:
every episode completed, each counted once. A run whose every episode failed exits 3."""

from __future__ import annotations

import json
import socket
from collections import Counter
from pathlib import Path

import pytest

from sim.cli.app import run_cli
from sim.cli.common import EXIT_NOTHING_SCORED
from tests.support.mockllm_server import mock_llm_server

pytestmark = pytest.mark.reliability

PLANNED = 300  # the run: 300 episodes (smart_home's 10 tasks x 30 trials)


def _dead_url() -> str:
    """An address nobody listens on: a port the kernel handed out, then closed."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _args(tmp_path: Path, url: str, *more: str) -> list[str]:
    config = tmp_path / "run.toml"
    config.write_text("[retry]\nmax_attempts = 1\n", encoding="utf-8")  # one refused connection fails a request
    return ["run", "-c", str(config), "--agent", f"openai-chat:mock-model@{url}", "--world", "smart_home",
            "--trials", "30", "--concurrency", "20", "--error-judge", "off", "--out", str(tmp_path),
            "--run-id", "outage", "-q", "--no-preflight", *more]  # fmt: skip


def _terminations(run: Path) -> Counter[str]:
    lines = (run / "episodes.jsonl").read_text(encoding="utf-8").splitlines()
    return Counter(json.loads(line)["termination"] for line in lines)


@pytest.mark.slow
def test_a_dead_endpoint_fails_the_run_with_exit_3_then_resume_on_a_new_port_completes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "outage"
    dead = _dead_url()
    assert run_cli(_args(tmp_path, dead)) == EXIT_NOTHING_SCORED
    assert "every episode failed" in capsys.readouterr().err
    assert _terminations(run) == {"provider_error": PLANNED}
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    assert summary["failed_episodes"] == summary["episodes"] == PLANNED

    with mock_llm_server({"policy": {"kind": "first_tool"}}) as srv:
        assert srv.url != dead
        assert run_cli([*_args(tmp_path, srv.url), "--resume"]) == 0, capsys.readouterr().err

    # Each failed record stays (append-only), superseded by the episode's newer one.
    assert _terminations(run) == {"provider_error": PLANNED, "completed": PLANNED}
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    assert summary["episodes"] == summary["planned_episodes"] == PLANNED  # no episode counted twice
    assert summary["terminations"] == {"completed": PLANNED}
    assert summary["failed_episodes"] == 0 and "judged_episodes" not in summary
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["config"]["agent"] == f"openai-chat:mock-model@{srv.url}"  # the next --resume starts there
    (moved,) = manifest["endpoint_history"]
    assert moved["from"] == {"agent": f"openai-chat:mock-model@{dead}"}

    capsys.readouterr()
    assert run_cli(["report", str(run), "--json", "--no-html"]) == 0
    reported = json.loads(capsys.readouterr().out)
    assert reported["episodes"] == PLANNED and reported["failed_episodes"] == 0


def test_run_help_documents_exit_3() -> None:
    from typer.testing import CliRunner

    from sim.cli.app import app

    out = " ".join(CliRunner().invoke(app, ["run", "--help"], terminal_width=200).output.split())
    assert "3 every episode failed" in out and "provider fault" in out


def test_an_episode_played_again_is_judged_again_when_its_scores_were_lost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A kill between an episode's new record and its scores: the old record's verdicts must not stand in for it
    (a score does not say which record it judged), so the next resume judges the newest record again."""
    run = tmp_path / "outage"
    small = ["--trials", "1", "--limit", "3"]
    assert run_cli([*_args(tmp_path, _dead_url()), *small]) == EXIT_NOTHING_SCORED
    old_scores = (run / "scores.jsonl").read_text(encoding="utf-8")
    with mock_llm_server({"policy": {"kind": "first_tool"}}) as srv:
        assert run_cli([*_args(tmp_path, srv.url), *small, "--resume"]) == 0
        judged = json.loads((run / "summary.json").read_text(encoding="utf-8"))
        (run / "scores.jsonl").write_text(old_scores, encoding="utf-8")  # the new records' scores never landed
        assert run_cli([*_args(tmp_path, srv.url), *small, "--resume"]) == 0
    lines = (run / "scores.jsonl").read_text(encoding="utf-8").splitlines()
    rejudged = Counter(json.loads(line)["episode_id"] for line in lines[len(old_scores.splitlines()) :])
    assert len(rejudged) == 3 and len(set(rejudged.values())) == 1
    assert json.loads((run / "summary.json").read_text(encoding="utf-8")) == judged
