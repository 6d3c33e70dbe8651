"""Feature-limitation errors that hint at a workaround the world really offers.

Real services refuse some requests by policy, not by fault: 'only 3 days of forecast on your plan', 'bulk
dismiss is disabled, dismiss one at a time', 'tracking has moved to the order details'. The targeted call
fails with that hint every time its condition holds; the agent must take the workaround and say what it
could not do. So the oracle still scores 1.0, ``on_task`` rewrites every affected path of the gold onto the
workaround (a path the row gives no workaround for is dropped: another accepted path, e.g. the one-by-one
path beside a bulk call, carries the goal) and attaches the row's reference response to affected goals.

Params:
- ``when``: clauses that must all hold for the call to be refused (none: always). A clause names ``arg``
  (one argument) or ``args`` (a list: its value is how many of them are given) and one test: ``gt``, ``ge``,
  ``lt``, ``eq``, ``in`` or ``present``.
- ``status`` (default ``failed``), ``code``, ``message`` (``{name}`` placeholders take the call's arguments).
- ``workaround``: call templates replacing a refused gold call. Each has ``name`` (default: the same tool),
  ``keep`` (true: every argument, or a list of names), ``drop``, ``set`` (fixed values), ``role`` (default:
  the refused call's), and optionally ``each`` (one call per given argument among these, with ``keep``) or
  ``chunk`` (``{"arg": name, "max": n}``: the value split into steps of at most n).
"""

from __future__ import annotations

from typing import Any, cast

from sim.core import CallContext, CallNext, CallOutcome, GoldCall, Task, ToolCall, failure
from sim.core.task import Goal
from sim.core.tools import ToolStatus
from worlds.stressors.scenario import Scenario, ScenarioStressor

TESTS = ("gt", "ge", "lt", "eq", "in", "present")


def clause_holds(clause: dict[str, Any], arguments: dict[str, Any]) -> bool:
    if "args" in clause:
        value: Any = sum(1 for name in clause["args"] if arguments.get(name) is not None)
    else:
        value = arguments.get(clause["arg"])
    for test in TESTS:
        if test not in clause:
            continue
        expected = clause[test]
        if test == "present":
            return (value is not None) == bool(expected)
        if value is None:
            return False
        if test == "in":
            return bool(value in expected)
        if test == "eq":
            return bool(value == expected)
        return bool({"gt": value > expected, "ge": value >= expected, "lt": value < expected}[test])
    raise ValueError(f"limitation clause {clause} has none of the tests {', '.join(TESTS)}")


def attach_reference(task: Task, affected: list[bool], scenario: Scenario) -> Task:
    """The scenario's reference response and criteria on the affected goals that have no reference of their own."""
    reference = scenario.reference_response
    if not reference or not any(affected):
        return task
    update = {"reference_response": reference, "criteria": list(scenario.criteria)}
    goals = [
        g.model_copy(update=update) if hit and g.reference_response is None else g
        for g, hit in zip(task.goals, affected, strict=True)
    ]
    return task.model_copy(update={"goals": goals})


class Limitation(ScenarioStressor):
    """Refuses the targeted calls that meet the row's condition, with a hint at the workaround."""

    def blocks(self, call: GoldCall | ToolCall) -> bool:
        """Deterministic: the limitation is policy, so the firing probability is not consulted here."""
        if call.name not in self.tools:
            return False
        return all(clause_holds(c, dict(call.arguments)) for c in self.params.get("when", []))

    def workaround(self, call: GoldCall) -> list[GoldCall] | None:
        """The calls replacing a refused gold call, or None when the row gives no workaround for it."""
        templates: list[dict[str, Any]] = self.params.get("workaround", [])
        if not templates:
            return None
        calls: list[GoldCall] = []
        for template in templates:
            calls += self._expand(template, call)
        return calls

    def _expand(self, template: dict[str, Any], call: GoldCall) -> list[GoldCall]:
        original = dict(call.arguments)
        keep = template.get("keep", True)
        base = dict(original) if keep is True else {k: original[k] for k in keep if k in original}
        for name in template.get("drop", []):
            base.pop(name, None)
        base.update(template.get("set", {}))
        name = str(template.get("name", call.name))
        role = template.get("role", call.role)
        variants: list[dict[str, Any]] = [base]
        if "each" in template:
            variants = [{**base, arg: original[arg]} for arg in template["each"] if original.get(arg) is not None]
        elif "chunk" in template:
            arg, step = template["chunk"]["arg"], int(template["chunk"]["max"])
            total = int(original[arg])
            variants = [{**base, arg: min(step, total - done)} for done in range(0, total, step)]
        return [GoldCall(name=name, arguments=args, role=role) for args in variants]

    def _rewrite(self, path: list[GoldCall]) -> list[GoldCall] | None:
        out: list[GoldCall] = []
        for call in path:
            if not self.blocks(call):
                out.append(call)
                continue
            replacement = self.workaround(call)
            if replacement is None:
                return None
            out += replacement
        return out

    def _goal(self, goal: Goal) -> Goal:
        paths: list[list[GoldCall]] = []
        for path in goal.paths():
            rewritten = self._rewrite(path)
            if rewritten is not None and rewritten not in paths:
                paths.append(rewritten)
        if not paths:  # nothing survives: leave the goal as it was (a table error the tests catch)
            return goal
        return goal.model_copy(update={"gold": paths[0], "alternatives": paths[1:]})

    def on_task(self, task: Task) -> Task:
        affected = [any(self.blocks(c) for path in g.paths() for c in path) for g in task.goals]
        if not any(affected):
            return task
        goals = [self._goal(g) if hit else g for g, hit in zip(task.goals, affected, strict=True)]
        return attach_reference(task.model_copy(update={"goals": goals}), affected, self.scenario)

    async def on_call(self, call: ToolCall, ctx: CallContext, next: CallNext) -> CallOutcome:
        if not (self.blocks(call) and self.targets(call)):
            return await next(call)
        message = str(self.params["message"]).format_map(_Arguments(call.arguments))
        status = cast(ToolStatus, self.params.get("status", "failed"))
        refusal = failure(call, status, str(self.params.get("code", "not_supported")), message)
        return CallOutcome.answered(refusal, self.name)


class _Arguments(dict[str, Any]):
    """Format arguments: a placeholder the call did not give stays as written."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


STRESSOR = Limitation
