"""Agent loops per goal (``judges.run.agent_loops``): model requests per goal the agent answered, or for an agent that
sends none its responses (last tool-call step + the reply, per turn); the mean over a run with a task-clustered
interval, and its headline row."""

from __future__ import annotations

from dataclasses import dataclass

from judges.run.agent_loops import FROM_REQUESTS, FROM_STEPS, LoopTally, episode_loops, loops_row


@dataclass(frozen=True)
class Ev:
    kind: str
    turn: int
    step: int = 0
    goal: int | None = None
    replayed: bool = False

    @property
    def goal_index(self) -> int:
        return self.turn if self.goal is None else self.goal


@dataclass(frozen=True)
class Call:
    role: str
    turn: int
    goal: int | None = None


def test_model_requests_per_answered_goal() -> None:
    events = [Ev("tool_call", 0, 1), Ev("agent_message", 0), Ev("tool_call", 1, 3), Ev("agent_message", 1)]
    calls = [Call("agent", 0), Call("agent", 0), Call("user", 0), *[Call("agent", 1) for _ in range(4)]]
    assert episode_loops(events, calls) == ({0: 2, 1: 4}, True)


def test_a_goal_over_two_turns_sums_them_and_replayed_gold_is_not_the_agents() -> None:
    calls = [Call("agent", 0, goal=0), Call("agent", 1, goal=0), Call("agent", 2, goal=1)]
    events = [Ev("agent_message", 0, goal=0), Ev("agent_message", 1, goal=0), Ev("agent_message", 2, goal=1)]
    assert episode_loops(events, calls) == ({0: 2, 1: 1}, True)
    replayed = [Ev("tool_call", 0, 1, replayed=True), Ev("agent_message", 0, replayed=True), Ev("agent_message", 1)]
    assert episode_loops(replayed, []) == ({1: 1}, False)


def test_an_agent_without_model_requests_is_counted_by_its_responses() -> None:
    oracle = [Ev("tool_call", 0, 1), Ev("tool_call", 0, 1), Ev("agent_message", 0)]  # one path: one response + reply
    assert episode_loops(oracle, []) == ({0: 2}, False)
    null = [Ev("agent_message", 0), Ev("agent_message", 1)]
    assert episode_loops(null, []) == ({0: 1, 1: 1}, False)


def test_the_run_mean_interval_and_row() -> None:
    tally = LoopTally()
    assert tally.result() is None and loops_row(None) is None
    tally.add("a", {0: 2, 1: 4}, True)
    tally.add("b", {0: 3}, True)
    tally.add("c", {}, True)  # nothing answered: no goals, no task
    result = tally.result()
    assert result is not None
    assert (result["mean"], result["goals"], result["loops"], result["counted_from"]) == (3.0, 3, 9, FROM_REQUESTS)
    low, high = result["ci95"]
    assert 2.0 <= low <= 3.0 <= high <= 4.0
    row = loops_row(result)
    assert row is not None and row[:2] == ["agent loops per goal", "3.00"] and FROM_REQUESTS in row[3]
    tally.add("d", {0: 1}, False)
    assert (tally.result() or {})["counted_from"] == f"{FROM_REQUESTS} and {FROM_STEPS}"
