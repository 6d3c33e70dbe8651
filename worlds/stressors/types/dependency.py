"""Functional dependencies beyond the world's own: a tool refuses to run until a documented prerequisite call
has succeeded earlier in the episode (a session that must sync the clock, load the payment profile...).

The spec says so; the stressor tracks, per episode, which prerequisites have succeeded; gold gets the
prerequisite inserted (role support) before the first targeted call of each goal that is not already covered,
so replaying gold still scores and replaying the original gold fails on the targeted call.

Row params: ``requires`` (the prerequisite tool), ``copy_args`` (arguments the prerequisite must share with the
targeted call, e.g. the same ``contact_id``; empty: any successful call counts), ``args`` (fixed arguments of the
inserted prerequisite), ``reason`` (why, for the spec and the refusal).
"""

from __future__ import annotations

from typing import Any

from sim.core import CallContext, CallNext, CallOutcome, GoldCall, Task, ToolCall, ToolSpec, failure
from worlds.stressors.scenario import ScenarioStressor
from worlds.stressors.types.spec_edit import edit_spec

Key = tuple[Any, ...]


class Prerequisite(ScenarioStressor):
    """Refuses the targeted tools until ``requires`` has succeeded (for the same ``copy_args``) this episode."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.requires = str(self.params["requires"])
        self.copy_args: tuple[str, ...] = tuple(self.params.get("copy_args", ()))
        self.fixed_args: dict[str, Any] = dict(self.params.get("args", {}))
        self.reason = str(self.params["reason"])
        self.done: set[Key] = set()
        """Keys for which the prerequisite has succeeded in this episode."""

    def _key(self, arguments: dict[str, Any]) -> Key:
        return tuple(_hashable(arguments.get(a)) for a in self.copy_args)

    def _rule(self) -> str:
        same = f" for the same {', '.join(self.copy_args)}" if self.copy_args else ""
        return f"Requires a successful {self.requires} call earlier in this session{same} ({self.reason})."

    def on_spec(self, specs: list[ToolSpec], instructions: str) -> tuple[list[ToolSpec], str]:
        return [
            edit_spec(s, f"{s.description} {self._rule()}") if s.name in self.tools else s for s in specs
        ], instructions

    async def on_call(self, call: ToolCall, ctx: CallContext, next: CallNext) -> CallOutcome:
        if call.name in self.tools and self._key(call.arguments) not in self.done and self.targets(call):
            message = f"{call.name} needs {self.requires} first in this session: {self.reason}."
            return CallOutcome.answered(failure(call, "failed", "prerequisite_missing", message), self.name)
        outcome = await next(call)
        # A look-alike's own lookup (it answers a decoy from real data) is not the agent calling the prerequisite.
        fired = (*ctx.outer_fired, *outcome.fired)
        on_its_behalf = any(name.startswith("lookalike.") for name in fired)
        if call.name == self.requires and outcome.result.ok and not on_its_behalf:
            self.done.add(self._key(call.arguments))
        return outcome

    def on_replay(self, call: ToolCall, goal: int) -> ToolCall:
        """A prerequisite in the gold the isolated setup replays is one the history the agent is handed has made."""
        if call.name == self.requires:
            self.done.add(self._key(call.arguments))
        return call

    def on_task(self, task: Task) -> Task:
        """Insert the prerequisite where a path reaches a targeted call it has not had yet.

        Earlier goals count only when every one of their paths made the prerequisite (the oracle may take any)."""
        covered: set[Key] = set()
        goals = []
        for goal in task.goals:
            paths = [self._path(list(p), covered) for p in goal.paths()]
            per_path = [{self._key(c.arguments) for c in p if c.name == self.requires} for p in paths]
            covered |= set.intersection(*per_path)
            if paths != goal.paths():
                goal = goal.model_copy(update={"gold": paths[0], "alternatives": paths[1:]})
            goals.append(goal)
        return task.model_copy(update={"goals": goals}) if goals != task.goals else task

    def _path(self, path: list[GoldCall], covered: set[Key]) -> list[GoldCall]:
        have = set(covered)
        out: list[GoldCall] = []
        for call in path:
            if call.name == self.requires:
                have.add(self._key(call.arguments))
            elif call.name in self.tools and self._key(call.arguments) not in have:
                arguments = {**self.fixed_args, **{a: call.arguments[a] for a in self.copy_args if a in call.arguments}}
                out.append(GoldCall(name=self.requires, arguments=arguments, role="support"))
                have.add(self._key(call.arguments))
            out.append(call)
        return out


def _hashable(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


STRESSOR = Prerequisite
