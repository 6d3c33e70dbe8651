"""Hints: the agent is told which functions answer each request (the hints condition of the external-failures
study, seed 001 §5: problem-specific information added to reduce ambiguity, e.g. national vs regional elections).

In a world of thousands of look-alike functions most of what an agent gets wrong is which function a question
means; the study measures how far disambiguating information added to each question helps, with and without
outages. Here the hint goes into the agent's instructions, one line per request, from the task's gold (the first
solution path, in call order): ``describe`` gives what each function does (its description's first sentence, as
the world documents it), ``name`` names the functions. The hint points at the first path only, as the study's
hints say what is asked rather than how to recover: under an outage the agent must still find the backup path.
The user's words and the gold are unchanged, so the oracle still scores 1.0 and the null agent 0.0.

Row param: ``mode``, ``describe`` or ``name``.
"""

from __future__ import annotations

from typing import Any

from sim.core import Task, ToolSpec
from worlds.stressors.scenario import Scenario, ScenarioStressor

MODES = ("describe", "name")


class Hint(ScenarioStressor):
    """Appends one hint line per request to the agent's instructions."""

    def __init__(self, scenario: Scenario, seed: int, overrides: dict[str, Any] | None = None) -> None:
        super().__init__(scenario, seed, overrides)
        self.mode = mode_of(self.name, self.params)
        self.gold: list[list[str]] = []

    @classmethod
    def check_row(cls, scenario: Scenario) -> None:
        mode_of(scenario.name, scenario.params)

    def on_task(self, task: Task) -> Task:
        self.gold = [list(dict.fromkeys(c.name for c in goal.gold)) for goal in task.goals]
        return task

    def on_spec(self, specs: list[ToolSpec], instructions: str) -> tuple[list[ToolSpec], str]:
        lines = hint_lines(self.gold, {s.name: s for s in specs}, self.mode)
        if not lines:
            return specs, instructions
        head = "Hints: what answers each request, in order (a function may be unavailable: then find another way)."
        return specs, "\n\n".join(p for p in (instructions, "\n".join([head, *lines])) if p)


def hint_lines(gold: list[list[str]], specs: dict[str, ToolSpec], mode: str) -> list[str]:
    """One line per request whose gold calls documented functions (an earlier stressor's renamed ones are left
    out: the hint never names what the agent cannot see)."""
    lines = []
    for g, names in enumerate(gold):
        known = [specs[n] for n in names if n in specs]
        if known:
            said = [f"`{s.name}`" if mode == "name" else first_sentence(s.description) for s in known]
            lines.append(f"- request {g + 1}: " + "; then ".join(said))
    return lines


def first_sentence(text: str) -> str:
    head, dot, _ = text.strip().partition(". ")
    return (head + "." if dot else head).strip() or "(undocumented)"


def mode_of(name: str, params: dict[str, Any]) -> str:
    mode = params.get("mode")
    if mode not in MODES:
        raise ValueError(f"{name}: mode must be one of {', '.join(MODES)}, got {mode!r}")
    return str(mode)


STRESSOR = Hint
