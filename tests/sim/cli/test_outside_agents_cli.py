"""``squall run`` with an agent outside squall, end to end. An agent that is not there fails the run before it starts
(exit 2, one line, nothing written, within 5 s); one that dies mid-run leaves its episodes unscored, the run exits 3
until ``--resume`` plays them; the ``examples/`` agents run as the README writes them."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.cli import assert_clean_failure, squall, tree
from tests.support.paths import REPO_ROOT
from tests.support.ports import free_port

EXAMPLES = REPO_ROOT / "examples"
DYING_AGENT = REPO_ROOT / "tests" / "support" / "dying_agent.py"
SMALL = ("--world", "smart_home", "--limit", "2", "-q")


@contextmanager
def serving(argv: list[str], port: int, cwd: Path = REPO_ROOT) -> Iterator[subprocess.Popen[bytes]]:
    """A Python program run in squall's environment, once it listens on ``port``; killed on exit."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    process = subprocess.Popen([sys.executable, *argv], cwd=cwd, env=env, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while process.poll() is None and time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        assert process.poll() is None, f"{argv} exited with {process.returncode}"
        yield process
    finally:
        process.kill()
        process.wait()


def summary(out: Path, run_id: str) -> dict[str, object]:
    loaded: dict[str, object] = json.loads((out / run_id / "summary.json").read_text())
    return loaded


def test_an_http_agent_nothing_listens_for_fails_the_run_before_it_starts_within_5_s(tmp_path: Path) -> None:
    agent = f"http:http://127.0.0.1:{free_port()}/agent"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "sim", "run", "--agent", agent, *SMALL, "--out", str(tmp_path / "runs")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    took = time.monotonic() - started
    assert_clean_failure(done.returncode, done.stderr, "--agent: preflight:", "does not answer (Connection refused)")
    assert done.stdout == "" and tree(tmp_path) == [] and took < 5.0, (done.stdout, took)


@pytest.mark.parametrize(
    ("agent", "says"),
    [
        ("python:tests.support.no_such_module:respond", "does not import"),
        ("python:tests.support.outside_callables:two_arguments", "cannot take the one argument"),
        ("command:no-such-agent-program --fast", "program 'no-such-agent-program' not found"),
        ('command:"no-such-agent-program --fast"', "program 'no-such-agent-program' not found"),
        (f"command:{sys.executable} no_such_agent.py", "exited with status 2 on the squall-agent/1 hello"),
        ("command:false", "exited with status 1 on the squall-agent/1 hello"),
    ],
)
def test_a_python_or_command_agent_that_cannot_answer_fails_the_run_before_it_starts(
    tmp_path: Path, agent: str, says: str
) -> None:
    started = time.monotonic()
    code, _, err = squall("run", "--agent", agent, *SMALL, "--out", str(tmp_path))
    assert_clean_failure(code, err, "--agent:", says)
    assert tree(tmp_path) == [] and time.monotonic() - started < 5.0


def test_an_agent_killed_mid_run_leaves_its_episodes_unscored_until_resume_plays_them(tmp_path: Path) -> None:
    port = free_port()
    agent = f"http://127.0.0.1:{port}/agent"
    args = ("run", "--agent", agent, "--world", "smart_home", "--limit", "4", "--concurrency", "1", "-q")
    args += ("--out", str(tmp_path), "--run-id", "r")
    # Episode 1 takes 4 turns; the agent answers a fifth (episode 2's first) and dies: episodes 2-4 reach nobody.
    with serving([str(DYING_AGENT), str(port), "5"], port) as dying:
        code, _, err = squall(*args)
        dying.wait(timeout=10)
    assert code == 3, err
    assert "could not be reached in 3 of 4 episodes" in err and "--resume --run-id r" in err
    before = summary(tmp_path, "r")
    assert (before["scored_episodes"], before["failed_episodes"]) == (1, 3)  # not scored as the agent's zeros
    assert before["terminations"] == {"completed": 1, "provider_error": 3}
    assert before["error_codes"] == {"provider:outside_unreachable": 3}

    code, _, err = squall(*args, "--resume")  # still down: the preflight says so
    assert code == 2 and "does not answer" in err
    code, _, err = squall(*args, "--resume", "--no-preflight")  # played again, still unreachable: still exit 3
    assert code == 3 and "could not be reached in 3 of 4 episodes" in err

    with serving([str(DYING_AGENT), str(port)], port):
        code, _, err = squall(*args, "--resume")
    assert code == 0, err
    after = summary(tmp_path, "r")
    assert (after["scored_episodes"], after["failed_episodes"]) == (4, 0)
    assert after["terminations"] == {"completed": 4}


@pytest.fixture
def in_examples(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The current folder is examples/, as the README's commands are run; the interpreter's first, as ours
    (`python` in a command agent is the one squall runs on); the import path and modules left as they were."""
    monkeypatch.chdir(EXAMPLES)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(EXAMPLES))])
    yield
    for name in [m for m in sys.modules if m == "my_agents" or m.startswith("my_agents.")]:
        del sys.modules[name]


@pytest.mark.parametrize(
    "agent",
    [
        "python:my_agents.support:respond",  # from the folder holding my_agents/, as `python -m` would import it
        'command:"python my_agent.py --fast"',  # the README's form: the command quoted whole
        "command:python my_agent.py --fast",
    ],
)
def test_the_readme_examples_run_as_written(tmp_path: Path, in_examples: None, agent: str) -> None:
    code, out, err = squall("run", "--agent", agent, *SMALL, "--out", str(tmp_path), "--run-id", "ex")
    assert code == 0, out + err
    result = summary(tmp_path, "ex")
    assert (result["scored_episodes"], result["failed_episodes"]) == (2, 0)
    assert not result["error_codes"]  # every turn answered: no agent fault
    episodes = [json.loads(line) for line in (tmp_path / "ex" / "episodes.jsonl").read_text().splitlines()]
    replies = [e["content"] for ep in episodes for e in ep["events"] if e["kind"] == "agent_message"]
    assert replies and all(r.startswith(("You asked:", "I cannot do that yet.")) for r in replies)
    if agent.startswith("python:"):  # it reached the episode's tools over MCP
        assert any(e["kind"] == "tool_call" for ep in episodes for e in ep["events"])


def test_the_http_example_serves_the_python_agent(tmp_path: Path) -> None:
    port = free_port()
    with serving(["http_agent.py", "--port", str(port)], port, cwd=EXAMPLES):
        code, out, err = squall("run", "--agent", f"http://127.0.0.1:{port}/agent", *SMALL[:-1], "--out", str(tmp_path))
    assert code == 0, out + err
    said = " ".join(out.split())
    assert f"preflight: http://127.0.0.1:{port}/agent answers the squall-agent/1 hello (agent 'http_agent.py')" in said
    (run_dir,) = [p for p in tmp_path.iterdir() if p.name != "latest"]
    assert f"run{run_dir.name}:{run_dir}" in "".join(said.split())  # the run's id, said when it starts (wrapped)
    result = summary(tmp_path, run_dir.name)
    assert (result["scored_episodes"], result["failed_episodes"]) == (2, 0) and not result["error_codes"]
    assert '"kind":"tool_call"' in (run_dir / "episodes.jsonl").read_text().replace(" ", "")
