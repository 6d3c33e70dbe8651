"""An outside agent that cannot be used is refused before the run folder exists, and one that stops answering
mid-run voids its episodes (resumable, exit 3) instead of scoring them 0."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from sim.agents.outside.spec import command_argv, load_callable
from tests.support.cli import assert_clean_failure, squall
from tests.support.ports import free_port


def test_an_http_agent_with_nothing_listening_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/agent"
    code, _, err = squall("run", "--agent", f"http:{url}", "--out", str(tmp_path / "runs"))
    assert_clean_failure(code, err, "--agent: preflight", url, "does not answer")
    assert not (tmp_path / "runs").exists()


def test_an_http_agent_gone_mid_run_voids_every_episode_and_the_run_exits_3(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/agent"
    argv = ["run", "--agent", url, "--limit", "2", "--out", str(tmp_path), "--run-id", "gone", "-q", "--no-preflight"]
    code, out, err = squall(*argv)
    assert code == 3, out + err
    assert "--resume --run-id gone" in " ".join(err.split())
    assert "provider:outside_unreachable" in out


def test_a_command_quoted_whole_is_split_as_its_words() -> None:
    assert command_argv('"python my_agent.py --fast"') == ["python", "my_agent.py", "--fast"]
    assert command_argv("python my_agent.py --fast") == ["python", "my_agent.py", "--fast"]
    assert command_argv("'python -c \"print(1)\"'") == ["python", "-c", "print(1)"]


def test_a_python_agent_in_the_current_folder_imports_as_with_python_m(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "my_agents_here"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "support.py").write_text("async def respond(request):\n    return 'hello'\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", os.getcwd(), str(tmp_path))])
    assert callable(load_callable("my_agents_here.support:respond"))
    sys.modules.pop("my_agents_here.support", None)
    sys.modules.pop("my_agents_here", None)


def test_the_run_says_its_id_when_it_starts(tmp_path: Path) -> None:
    code, out, _ = squall("run", "--agent", "oracle", "--limit", "1", "--out", str(tmp_path), "--run-id", "named")
    assert code == 0 and f"run named: {tmp_path / 'named'}" in " ".join(out.split())
