"""State judging on a simulated world: the episode's accepted writes against the gold's, per goal.

End to end on the shipped ticket desk from its committed cache: the oracle matches every goal that writes, the null
agent none. Against one goal's gold: a write nobody asked for is collateral, a POST made twice is a wrong value (it
created two items), an update made twice is the same state, and a default spelled out is the write left out. And a
scripted agent that closes a ticket nobody mentioned before its right assignment: both writes accepted, state 0.0,
the episode counted with collateral damage.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from judges.calls.state import judge_goal_state
from sim.core import GoalState, ToolCall
from tests.support.cli import squall
from tests.support.mockllm_server import mock_llm_server
from tests.worlds.simulated.world_copy import desk_copy
from worlds.registry import load_world
from worlds.simulated.cache import CachedResponse
from worlds.simulated.examples import ticket_desk_pack
from worlds.simulated.world import SimulatedPack

CREATE = ("createTicket", {"title": "API key rotation fails", "requester_email": "li.wei@example.com"})
ASSIGN = ("updateTicket", {"ticketId": "T-1005", "assignee": "ag-1"})
CLOSE = ("updateTicket", {"ticketId": "T-1004", "status": "closed"})
COMMENT = ("addComment", {"ticketId": "T-1002", "text": "Done."})


def state(*writes: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    """The world's task state after ``writes`` were accepted (the memory a run would hold; no answers needed)."""
    pack = ticket_desk_pack()
    world = pack.new_world(0)
    defaults = pack.runtime.defaults
    world.restore([[name, {**defaults[name], **arguments}, {}] for name, arguments in writes])
    return world.task_state()


def verdict(agent: dict[str, Any], gold: dict[str, Any]) -> tuple[bool, list[str], list[str], list[str]]:
    judged = judge_goal_state(GoalState(goal=0, before={}, after=agent, gold_before={}, gold_after=gold))
    assert judged is not None
    return judged.matched, judged.missing, judged.wrong, judged.collateral


def test_writes_against_the_gold() -> None:
    gold = state(ASSIGN)
    assert verdict(state(ASSIGN), gold) == (True, [], [], [])
    assert verdict(state(ASSIGN, ASSIGN), gold)[0]  # an update made twice leaves the service as once
    assert verdict(state(), gold)[1] == list(gold)
    matched, _, _, collateral = verdict(state(ASSIGN, CLOSE), gold)
    assert not matched and collateral == list(state(CLOSE))
    twice = verdict(state(CREATE, CREATE), state(CREATE))
    assert not twice[0] and twice[2] == list(state(CREATE))  # two tickets where one was asked for
    assert verdict(state(("addComment", {**COMMENT[1], "internal": False})), state(COMMENT))[0]


def test_oracle_one_null_zero_on_the_goals_that_write(tmp_path: Path) -> None:
    scores = {}
    for agent in ("oracle", "null"):
        code, _, err = squall(
            "run", "--world", "ticket_desk", "--agent", agent, "--out", str(tmp_path), "--run-id", agent, "-q",
            "--cache", "read-only",
        )  # fmt: skip
        assert code == 0, err
        summary = json.loads((tmp_path / agent / "summary.json").read_text(encoding="utf-8"))
        assert summary["state_goals"] > 0 and summary["state_gold_unavailable"] == 0
        scores[agent] = summary["state_match"]
    assert scores == {"oracle": 1.0, "null": 0.0}


def summary_of(out: Path, run_id: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((out / run_id / "summary.json").read_text(encoding="utf-8"))
    return loaded


@pytest.mark.slow
def test_an_extra_write_is_collateral_damage(tmp_path: Path) -> None:
    world = desk_copy(tmp_path, None, tasks=["td-09"])
    pack = load_world(str(world))
    assert isinstance(pack, SimulatedPack)
    # The assignment as answered after the stray close: the cache holds it only before any write.
    episode = pack.new_world(0)
    close = ToolCall(id="c", name=CLOSE[0], arguments=CLOSE[1])
    assert (asyncio.run(episode.call(close))).ok
    answered = pack.runtime.store.get(ASSIGN[0], ASSIGN[1], "")
    assert answered is not None
    pack.runtime.store.put(ASSIGN[0], CachedResponse(ASSIGN[1], episode.state_key(), answered.response, "test"))
    script = [
        {"tool_calls": [{"name": "listAgents", "arguments": {"team": "technical"}}]},
        {"tool_calls": [{"name": CLOSE[0], "arguments": CLOSE[1]}]},
        {"tool_calls": [{"name": ASSIGN[0], "arguments": ASSIGN[1]}]},
        {"text": "T-1005 is now assigned to Priya Natarajan."},
    ]
    with mock_llm_server({"policy": {"kind": "script", "steps": script}}) as server:
        code, _, err = squall(
            "run", "--world", str(world), "--agent", f"openai-chat:mock-model@{server.url}", "--out", str(tmp_path),
            "--run-id", "stray", "-q", "--cache", "read-only",
        )  # fmt: skip
    assert code == 0, err
    summary = summary_of(tmp_path, "stray")
    assert summary["failed_episodes"] == 0 and summary["state_goals"] == 1
    assert summary["state_match"] == 0.0 and summary["collateral_damage_episodes"] == 1
