"""Complexity scenarios as data, and the base every scenario stressor builds on.

A scenario is one row of ``data/*.jsonl``: which complexity type, which tools it targets, what it
does (``params``, read by that type's stressor class), when it fires, and for errors the reference
error-handling response and judging criteria. A stressor instance is built per episode from a scenario, a
seed and optional parameter overrides (``failure:rate=0.1``); each time it acts, the ``CallOutcome`` its
``on_call`` returns names it among the scenarios that fired (``sim.core.calls``), so traces tell injected from
real.
"""

from __future__ import annotations

import random
from typing import Any, Literal

from pydantic import Field, model_validator

from sim.core import CallContext, CallNext, CallOutcome, Task, ToolCall, ToolSpec
from sim.core.tools import Frozen

ComplexityType = Literal[
    "adhoc",
    "lookalike",
    "dependency",
    "ambiguous",
    "notice",
    "irrelevant",
    "limitation",
    "failure",
    "drift",
    "perturb",
    "expand",
    "missing",
    "outage",
    "search",
    "events",
    "injection",
    "universe",
    "hint",
]
LEVEL: dict[str, Literal["spec", "exec", "user"]] = {
    "adhoc": "spec",
    "lookalike": "spec",
    "dependency": "spec",
    "ambiguous": "spec",
    "notice": "exec",
    "irrelevant": "exec",
    "limitation": "exec",
    "failure": "exec",
    "drift": "spec",  # the docs stay at the old version while the world enforces the new one
    "perturb": "user",  # what the user says, every value kept
    "expand": "spec",  # related-but-different tools beside the gold ones
    "missing": "spec",  # a function the task needs is not in the toolkit (yet)
    "outage": "exec",  # the function the agent picks goes down
    "search": "spec",  # every tool hidden behind search_tools / get_info
    "events": "exec",  # the world changes on its own while the agent works
    "injection": "exec",  # a stranger's instruction planted in what a tool returns
    "universe": "spec",  # only a share of the tools the goal would offer, the gold ones among them
    "hint": "spec",  # the instructions say which functions answer each request
}
"""Specification complexity changes what the agent reads; execution complexity what it observes; user
complexity what it is asked."""
ERROR_TYPES = frozenset({"limitation", "failure", "outage"})
TASK_ROW_TYPES = frozenset({"events"})
"""Types whose rows are written for one task's data (an event's change and the gold of the changed world): nothing
for ``stressors assign`` to fit to a world's tools."""
WHOLE_TASK_TYPES = frozenset({"perturb", "expand", "missing", "outage", "search", "universe"})
"""Types that act on the whole task or toolkit (their rows target '*'): nothing for ``stressors assign`` to fit
to particular tools."""


OLD_PARAM_NAMES = {"from_turn": "from_goal"}
"""Parameters renamed since scenario rows and overrides were first written: old name -> new name."""


def renamed_params(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with old parameter names (drift's ``from_turn``, a goal index) under their new ones."""
    return {OLD_PARAM_NAMES.get(k, k): v for k, v in params.items()}


class Scenario(Frozen):
    name: str = Field(pattern=r"^[a-z]+\.[a-z0-9_]+$", description="Stable dotted name: '<type>.<slug>'.")
    type: ComplexityType
    tools: list[str] = Field(min_length=1, description="The tools the scenario targets.")
    effect: str = Field(min_length=1, description="One line: what the agent experiences.")
    probability: float = Field(default=1.0, gt=0, le=1, description="Chance it fires on each targeted call.")
    params: dict[str, Any] = Field(default_factory=dict, description="Type-specific settings.")
    reference_response: str | None = Field(
        default=None, description="Errors: the valid way to handle it (an approach, not a script)."
    )
    criteria: list[str] = Field(default_factory=list, description="Errors: what the error-handling judge checks.")
    by_name_only: bool = Field(
        default=False,
        description="Left out of every group (its type, its level, 'all'): selected only when named. For rows that "
        "make a goal of every task they touch impossible, which on a one-question world is every goal.",
    )

    @model_validator(mode="before")
    @classmethod
    def _new_param_names(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(params := data.get("params"), dict):
            return {**data, "params": renamed_params(params)}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> Scenario:
        if not self.name.startswith(f"{self.type}."):
            raise ValueError(f"name '{self.name}' must start with its type '{self.type}.'")
        if self.type in ERROR_TYPES and (not self.reference_response or not self.criteria):
            raise ValueError(f"{self.name}: an error scenario needs a reference_response and criteria")
        return self

    @property
    def level(self) -> Literal["spec", "exec", "user"]:
        return LEVEL[self.type]


class ScenarioStressor:
    """Identity hooks plus the bookkeeping every scenario needs; types override what they change."""

    def __init__(self, scenario: Scenario, seed: int, overrides: dict[str, Any] | None = None) -> None:
        self.scenario = scenario
        self.name = scenario.name
        self.params: dict[str, Any] = {**scenario.params, **renamed_params(overrides or {})}
        self.probability = float(self.params.pop("rate", scenario.probability))
        self.tools = frozenset(scenario.tools)
        self.rng = random.Random(f"{scenario.name}:{seed}")

    @classmethod
    def check_row(cls, scenario: Scenario) -> None:
        """Raise ValueError naming the field when the row's ``params`` do not suit the type (none checked here)."""

    def targets(self, call: ToolCall) -> bool:
        """The call is one this scenario targets, and the seeded coin says it fires this time."""
        return call.name in self.tools and (self.probability >= 1 or self.rng.random() < self.probability)

    def on_task(self, task: Task) -> Task:
        return task

    def on_spec(self, specs: list[ToolSpec], instructions: str) -> tuple[list[ToolSpec], str]:
        return specs, instructions

    def on_tools(self, goal: int, specs: list[ToolSpec]) -> list[ToolSpec]:
        return specs

    async def on_call(self, call: ToolCall, ctx: CallContext, next: CallNext) -> CallOutcome:
        return await next(call)
