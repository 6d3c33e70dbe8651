"""``--agent command:"PROG ARGS"``: the request as JSON on stdin, the reply (JSON or plain text) on stdout; a program
that hangs is killed with everything it started, one that crashes or prints garbage is a classified fault of that
episode."""

from __future__ import annotations

import asyncio
import os
import shlex
import sys
from pathlib import Path

import pytest

from tests.support.outside_agents import agent_faults, play_outside

CLI = Path(__file__).parents[2] / "support" / "outside_cli.py"


def command(*args: str) -> str:
    return "command:" + shlex.join([sys.executable, str(CLI), *args])


def gone(pid: int) -> bool:
    """Not running: no such process, or a zombie waiting for its (re)parent to reap it."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


async def test_a_program_answers_json_or_plain_text_and_its_usage_is_recorded() -> None:
    result = await play_outside(command("json"))
    assert result.termination == "completed" and agent_faults(result) == []
    replies = [ev for ev in result.events if ev.kind == "agent_message"]
    assert [ev.content for ev in replies] == [f"turn {i}: ok" for i in range(len(replies))] and len(replies) > 1
    said = [ev.content or "" for ev in result.events if ev.kind == "user_message"]
    assert all(ev.usage is not None for ev in replies)
    assert [(ev.usage.requests, ev.usage.input_tokens) for ev in replies if ev.usage] == [(1, len(s)) for s in said]
    assert result.usage_by_role["agent"].requests == len(replies)

    text = await play_outside(command("text"))
    assert next(ev.content for ev in text.events if ev.kind == "agent_message") == "Plain words for turn 0."


async def test_a_program_may_end_the_conversation() -> None:
    result = await play_outside(command("end"))
    assert result.termination == "completed" and result.turns_played == 1
    assert [ev.kind for ev in result.events][-1] == "agent_message"


@pytest.mark.parametrize(
    ("mode", "code"),
    [
        ("crash", "agent:outside_failed"),
        ("garbage", "agent:outside_bad_reply"),
        ("badjson", "agent:outside_bad_reply"),
        ("shape", "agent:outside_bad_reply"),
    ],
)
async def test_a_program_that_crashes_or_prints_garbage_is_the_agents_fault_on_that_episode(
    mode: str, code: str
) -> None:
    result = await play_outside(command(mode))
    faults = [ev for ev in result.events if ev.kind == "error"]
    assert faults and {(ev.fault, ev.code) for ev in faults} == {("agent", code)}
    assert result.termination == "completed"  # each turn is lost; the user goes on, the judges score
    if mode == "crash":
        assert "exited with status 3" in (faults[0].content or "") and "something broke" in (faults[0].content or "")


async def test_a_program_that_hangs_is_killed_with_its_children_when_the_episode_time_runs_out(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    result = await play_outside(command("hang", str(pidfile)), timeout_s=2.0)
    assert result.termination == "timeout"
    assert [(ev.fault, ev.code) for ev in result.events if ev.kind == "error"] == [("agent", "agent:outside_timeout")]
    leader, child = map(int, pidfile.read_text().split())
    assert gone(leader)
    for _ in range(200):  # the orphaned child is reaped by whoever adopts it, not by us
        if gone(child):
            break
        await asyncio.sleep(0.05)
    assert gone(child), f"pid {child} outlived its turn"
    assert os.getpgid(os.getpid()) != leader  # it ran in a process group of its own
