"""Missing functions: a function the task needs is not in the toolkit when the user asks for it.

The chosen goal is one whose every solution path does its work with one function F alone (every core call of
every path is F: nothing else the agent could do would be part of a right answer). While the user pursues that goal
F is not among the tools the agent may call; a call to it is refused as an unknown function. The goal becomes a
``decline`` goal: the right behaviour is to say it cannot be done (yet), not to invent a call or do something else
instead.

``mode: until_later`` — the task's first such goal (row param ``turn: n``: the n-th), but never its last. F comes
back at the next goal, where the user asks again: that goal's request is the earlier one followed by its own, and
its solution paths are the earlier paths followed by its own, so every later goal meets the state it was written
for. (A pair of goals where one looks up with a function the other answers with is passed over: joined, the judge
could not tell the lookup from the answer.)
``mode: removed`` — the task's last goal with core calls, if it is such a goal: F is gone from then on. The last
one because later goals were written against the state the earlier ones leave; after a goal that did nothing, a
later acting goal might fail for reasons no missing function explains.

``rate`` (the row's ``probability``, 1.0) is the share of tasks it acts on, drawn by task id
(``decline.task_drawn``). ``missing.removed`` is in no group (``by_name_only``): on a one-question world it would
make every question impossible, so a run asks for it by name.

The choice depends on the task alone, so every trial meets the same condition and the summary knows the goals.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from sim.core import Goal, Task, ToolSpec
from worlds.stressors.decline import declined, task_drawn, uses, without_paths_through
from worlds.stressors.scenario import Scenario, ScenarioStressor

MODES = ("until_later", "removed")
DECLINE_REPLY = (
    "I'm sorry, I can't do that: none of the tools I have right now can. I can help with something else, or you can "
    "ask again later."
)
MAX_JOINED_PATHS = 6
"""A re-asked goal joins every earlier path with every own path; real goals have 1-3 each."""


class MissingFunction(ScenarioStressor):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.mode = str(self.params.get("mode", "until_later"))
        if self.mode not in MODES:
            raise ValueError(f"{self.name}: unknown missing-function mode '{self.mode}' (one of {', '.join(MODES)})")
        self.missing: tuple[int, str] | None = None  # (goal, function)

    def on_task(self, task: Task) -> Task:
        drawn = task_drawn(task.id, self.name, self.probability)
        self.missing = pick(task, self.mode, int(self.params.get("turn", 0))) if drawn else None
        if self.missing is None:
            return task
        goal, function = self.missing
        if self.mode == "until_later":
            return _asked_again(task, goal)
        return without_paths_through(task, goal, {function}, DECLINE_REPLY, self.scenario.criteria)

    def on_tools(self, goal: int, specs: list[ToolSpec]) -> list[ToolSpec]:
        if self.missing is None:
            return specs
        start, function = self.missing
        gone = goal == start if self.mode == "until_later" else goal >= start
        return [s for s in specs if s.name != function] if gone else specs

    @classmethod
    def affected_goals(cls, task: Task, scenario: Scenario) -> list[int]:
        mode = str(scenario.params.get("mode", "until_later"))
        picked = pick(task, mode, int(scenario.params.get("turn", 0)))
        if picked is None or not task_drawn(task.id, scenario.name, scenario.probability):
            return []
        start, function = picked
        if mode == "until_later":
            return [start, start + 1]
        return [t for t in range(start, len(task.goals)) if uses(task.goals[t].paths(), {function})]


def sole_function(goal: Goal) -> str | None:
    """The one function every core call of every path of the goal makes, if there is one."""
    names = {c.name for path in goal.paths() for c in path if c.role == "core"}
    if len(names) != 1 or not all(any(c.role == "core" for c in path) for path in goal.paths()):
        return None
    return next(iter(names))


def pick(task: Task, mode: str, nth: int = 0) -> tuple[int, str] | None:
    """(goal, function) for this task, or None when no goal qualifies."""
    acting = [g for g, goal in enumerate(task.goals) if any(c.role == "core" for c in goal.gold)]
    if mode == "removed":
        function = sole_function(task.goals[acting[-1]]) if acting else None
        return (acting[-1], function) if function is not None else None
    eligible = []
    for g, goal in enumerate(task.goals[:-1]):
        function = sole_function(goal)
        after = task.goals[g + 1]
        mixed = (_support_names(goal) | _support_names(after)) & (_core_names(goal) | _core_names(after))
        # The goal that asks again must be one to act on: not one whose right move is to ask (a withheld value).
        if function is not None and after.outcome == "solve" and not mixed and not after.user.withheld:
            eligible.append((g, function))
    return eligible[min(nth, len(eligible) - 1)] if eligible else None


def _core_names(goal: Goal) -> set[str]:
    return {c.name for path in goal.paths() for c in path if c.role == "core"}


def _support_names(goal: Goal) -> set[str]:
    return {c.name for path in goal.paths() for c in path if c.role == "support"}


def _asked_again(task: Task, start: int) -> Task:
    earlier, own = task.goals[start], task.goals[start + 1]
    paths = [a + b for a, b in product(earlier.paths(), own.paths())][:MAX_JOINED_PATHS]
    lead = f"Let's try my earlier request again: {earlier.user.explicit}"
    user = own.user.model_copy(  # what the intent says beside its wordings (refers_to, gives) is kept
        update={
            "explicit": f"{lead} {own.user.explicit}",
            "coreferential": f"{lead} {own.user.coreferential}" if own.user.coreferential else None,
            "paraphrases": [],
        }
    )
    answers = " ".join(a for a in (earlier.gold_answer, own.gold_answer) if a)
    free = sorted(_qualified_free(earlier) | _qualified_free(own))  # each goal's leave free only its own calls' args
    joined = own.model_copy(
        update={
            "user": user,
            "gold": paths[0],
            "alternatives": paths[1:],
            "gold_answer": answers or None,
            "free_arguments": free,
        }
    )
    goals = [*task.goals[:start], declined(earlier, DECLINE_REPLY), joined, *task.goals[start + 2 :]]
    return task.model_copy(update={"goals": goals})


def _qualified_free(goal: Goal) -> set[str]:
    """The goal's free arguments as ``tool.param`` of its own tools (a bare ``param`` means every call of the goal)."""
    tools = sorted({c.name for path in goal.paths() for c in path})
    return {e if any(e.startswith(f"{t}.") for t in tools) else f"{t}.{e}" for e in goal.free_arguments for t in tools}


STRESSOR = MissingFunction
