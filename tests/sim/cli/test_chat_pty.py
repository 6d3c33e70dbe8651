"""``squall chat`` in a pseudo-terminal: a person types two goals' messages to the oracle, moves between goals, ends
the session, and the saved episode is scored — and ``squall score`` re-judges it to the same values."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.support.mockllm_server import mock_llm_server
from tests.support.paths import REPO_ROOT as ROOT

pexpect = pytest.importorskip("pexpect", reason="pexpect drives the pseudo-terminal (a dev dependency)")

PROMPT = "you ›"


def spawn(args: list[str], tmp_path: Path) -> pexpect.spawn:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "sim", *args],
        cwd=str(ROOT),
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TERM": "dumb", "COLUMNS": "200"},
        encoding="utf-8",
        timeout=60,
        dimensions=(50, 200),
    )
    return child


@pytest.mark.slow
def test_a_person_plays_two_goals_against_the_oracle_and_the_episode_is_saved_and_scored(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    child = spawn(["chat", "--agent", "oracle", "--task", "sh-001", "--out", str(out), "--run-id", "talk"], tmp_path)
    child.expect("4 goals")
    child.expect(PROMPT)
    child.sendline("/help")
    child.expect("/next")
    child.expect(PROMPT)
    child.sendline("Turn on the living room ceiling light and set it to 50% brightness.")
    child.expect(r"→ set_brightness")  # the call is shown as it happens
    child.expect("agent › Done.")
    child.expect(PROMPT)
    child.sendline("/next")
    child.expect("Goal 2 of 4")
    child.expect(PROMPT)
    child.sendline("Now make it blue.")
    child.expect(r"→ set_color")
    child.expect("agent › Done.")
    child.expect(PROMPT)
    child.sendline("/quit")
    child.expect("saved:")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    run = out / "talk"
    (episode,) = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    said = [(ev["turn"], ev["goal"], ev["content"]) for ev in episode["events"] if ev["kind"] == "user_message"]
    assert said == [
        (0, 0, "Turn on the living room ceiling light and set it to 50% brightness."),
        (1, 1, "Now make it blue."),
    ]
    assert episode["user"] == "human" and episode["goals_played"] == 2
    scores = {s["judge"]: s for s in map(json.loads, (run / "scores.jsonl").read_text().splitlines())}
    core = scores["core_api_accuracy"]
    assert core["per_goal"][:2] == [1.0, 1.0] and core["value"] == 0.5  # goals 3 and 4 were never played

    rescore = pexpect.run(
        f"{sys.executable} -m sim score {run}", cwd=str(ROOT), withexitstatus=True, encoding="utf-8", timeout=120
    )
    assert rescore[1] == 0, rescore[0]
    again = [json.loads(line) for line in (run / "scores.jsonl").read_text().splitlines()]
    latest = {s["judge"]: s["value"] for s in again[len(scores) :]} or {s["judge"]: s["value"] for s in again}
    assert latest["core_api_accuracy"] == 0.5


@pytest.mark.slow
def test_ctrl_d_at_the_first_prompt_saves_an_empty_conversation(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    child = spawn(["chat", "--agent", "oracle", "--out", str(out), "--run-id", "empty"], tmp_path)
    child.expect(PROMPT)
    child.sendeof()
    child.expect("saved:")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    (episode,) = [json.loads(line) for line in (out / "empty" / "episodes.jsonl").read_text().splitlines()]
    assert episode["turns_played"] == 0 and episode["termination"] == "completed"


def test_a_human_user_is_refused_by_squall_run(tmp_path: Path) -> None:
    result = pexpect.run(
        f"{sys.executable} -m sim run --agent oracle --user human --out {tmp_path} -q",
        cwd=str(ROOT),
        withexitstatus=True,
        encoding="utf-8",
        timeout=120,
    )
    assert result[1] == 2 and "squall chat" in result[0]
    assert not any(tmp_path.iterdir())


@pytest.mark.slow
def test_ctrl_c_while_a_slow_model_answers_cancels_its_request_and_saves_the_conversation(tmp_path: Path) -> None:
    """A model that would take 10 minutes: the person sees that the agent is working, Ctrl-C cancels the request
    (the pexpect timeout, not the model, bounds the wait) and the conversation is saved and judged as played."""
    out = tmp_path / "runs"
    slow = {"policy": {"kind": "echo"}, "latency": {"kind": "fixed", "value_s": 600}}
    with mock_llm_server(slow, max_lifetime_s=300) as server:
        agent = f"openai-chat:mock@{server.url}"
        child = spawn(["chat", "--agent", agent, "--out", str(out), "--run-id", "slow"], tmp_path)
        child.expect(PROMPT)
        child.sendline("Turn on the living room ceiling light.")
        child.expect("agent is working")
        child.sendintr()
        child.expect("stopping the agent")
        child.expect("saved:")
        child.expect(pexpect.EOF)
        child.close()
    assert child.exitstatus == 0
    (episode,) = [json.loads(line) for line in (out / "slow" / "episodes.jsonl").read_text().splitlines()]
    kinds = [(ev["kind"], ev.get("code")) for ev in episode["events"]]
    assert ("error", "user:stopped_agent") in kinds and ("agent_message", None) not in kinds
    assert episode["termination"] == "completed" and (out / "slow" / "scores.jsonl").stat().st_size > 0
    assert (out / "latest").resolve() == (out / "slow").resolve()


def test_an_abandoned_conversation_leaves_no_run_and_latest_as_it_was(tmp_path: Path) -> None:
    from sim.cli.chat import _abandon

    out = tmp_path / "runs"
    (out / "before").mkdir(parents=True)
    (out / "talk").mkdir()
    (out / "talk" / "manifest.json").write_text("{}")
    (out / "latest").symlink_to("talk")  # the run pointed it at itself when it started
    said = _abandon(out / "talk", "before")
    assert "nothing was saved" in said and not (out / "talk").exists()
    assert (out / "latest").resolve() == (out / "before").resolve()
    (out / "kept").mkdir()
    (out / "kept" / "episodes.jsonl").write_text('{"episode_id": "x"}\n')
    assert "keeps what was stored" in _abandon(out / "kept", None) and (out / "kept").exists()
