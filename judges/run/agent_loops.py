"""Average agent loops per goal: how many times the agent went round its think-act-observe loop per question, as the
API-styles study reports its ReAct agents' "Avg. Loops" (there: loops of a 10-loop budget per question).

A loop is one agent-role model request (a tool-calling step or the closing reply; a request retried by the gateway is
still one). An agent that sends no model request through the gateway (the calibration agents, an outside agent)
is counted by its responses instead: per turn, its last tool-call step plus the reply, the same count a model making
one request per step would have. Counted over the goals the agent answered in scored episodes (failed episodes stay
out, as from every rate); the interval resamples tasks whole (``cluster_bootstrap``), as the headline's rates do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from judges.common.stats import cluster_bootstrap

FROM_REQUESTS = "model requests"
FROM_STEPS = "responses (no model requests)"


class _CallLike(Protocol):
    @property
    def role(self) -> str: ...
    @property
    def turn(self) -> int: ...
    @property
    def goal(self) -> int | None: ...


class _EventLike(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def turn(self) -> int: ...
    @property
    def goal_index(self) -> int: ...
    @property
    def step(self) -> int: ...
    @property
    def replayed(self) -> bool: ...


def episode_loops(events: Sequence[_EventLike], model_calls: Sequence[_CallLike]) -> tuple[dict[int, int], bool]:
    """Loops per goal the agent answered (goal -> loops), and whether they are model requests (else responses)."""
    answered = {ev.goal_index for ev in events if ev.kind == "agent_message" and not ev.replayed}
    requests = [c for c in model_calls if c.role == "agent"]
    if requests:
        per_goal = dict.fromkeys(sorted(answered), 0)
        for call in requests:
            goal = call.turn if call.goal is None else call.goal
            per_goal[goal] = per_goal.get(goal, 0) + 1
        return per_goal, True
    last_step: dict[int, int] = {}  # turn -> its last tool-call step (0: none)
    goal_of: dict[int, int] = {}
    for ev in events:
        if ev.replayed or ev.kind not in ("tool_call", "agent_message"):
            continue
        goal_of[ev.turn] = ev.goal_index
        if ev.kind == "tool_call":
            last_step[ev.turn] = max(last_step.get(ev.turn, 0), ev.step)
        else:
            last_step.setdefault(ev.turn, 0)
    per_goal = {}
    for turn, step in last_step.items():
        per_goal[goal_of[turn]] = per_goal.get(goal_of[turn], 0) + step + 1
    return {g: n for g, n in per_goal.items() if g in answered}, False


class LoopTally:
    """Loops and goals per task over a run's scored episodes."""

    def __init__(self) -> None:
        self.by_task: dict[str, list[int]] = {}  # task -> [loops, goals]
        self.sources: set[bool] = set()

    def add(self, task_id: str, per_goal: dict[int, int], from_requests: bool) -> None:
        if not per_goal:
            return
        row = self.by_task.setdefault(task_id, [0, 0])
        row[0] += sum(per_goal.values())
        row[1] += len(per_goal)
        self.sources.add(from_requests)

    def result(self) -> dict[str, Any] | None:
        loops = sum(row[0] for row in self.by_task.values())
        goals = sum(row[1] for row in self.by_task.values())
        if not goals:
            return None
        ordered = [(float(self.by_task[t][0]), float(self.by_task[t][1])) for t in sorted(self.by_task)]
        source = " and ".join(FROM_REQUESTS if s else FROM_STEPS for s in sorted(self.sources, reverse=True))
        return {
            "mean": round(loops / goals, 4),
            "ci95": cluster_bootstrap(ordered),
            "goals": goals,
            "loops": loops,
            "counted_from": source,
        }


def loops_row(loops: dict[str, Any] | None) -> list[str] | None:
    """The headline row: mean loops per goal, its interval, what it is over and what was counted."""
    if not loops:
        return None
    ci = loops.get("ci95")
    interval = f"[{ci[0]:.2f}, {ci[1]:.2f}]" if ci else ""
    over = f"{loops['goals']} goals; {loops['counted_from']}"
    return ["agent loops per goal", f"{loops['mean']:.2f}", interval, over]
