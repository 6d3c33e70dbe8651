"""The scenario table, and ``--stressors`` selections turned into per-episode stressors.

A selection item is a name with optional parameters, ``NAME[:key=value,...]``, where NAME is
- a scenario (``adhoc.color_hex``), a complexity type (``failure``, ``outage``), a level (``spec``, ``exec``) or
  ``all``.
Parameters override the scenario's ``params`` (``rate`` sets the firing probability), for every scenario
the item selects. Scenarios none of whose tools the world has are left out of a group; naming one directly,
or a group that leaves nothing, is an error. A group never holds a ``by_name_only`` row (``outage.impossible``,
``missing.removed``): those make a goal of every task they touch impossible, which on a one-question world is
every question, so ``outage`` means the backup-path outage and the impossible modes are asked for by name.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sim.core import Stressor
from sim.core.suggest import did_you_mean
from worlds.stressors.scenario import LEVEL, Scenario, ScenarioStressor, renamed_params

SCENARIO_DIR = Path(__file__).parent / "data"
"""Every ``*.jsonl`` file here, in name order (one per level: spec.jsonl, exec.jsonl)."""
WORLD_SCENARIOS = "*/data/scenarios.jsonl"
"""Rows a world ships beside itself (``worlds/tau2/data/scenarios.jsonl``), for its own tools, after the shared ones."""
GROUPS = ("all", "spec", "exec", "user", *LEVEL)
ROW_CHECKED_TYPES = frozenset({"events"})
"""Types whose ``params`` are a schema of their own, checked when the table loads (``check_row``), so a bad row is
named by file and line before any run."""


class StressorSelectionError(ValueError):
    """A --stressors item that names nothing, or parameters that do not parse."""


def load_scenarios(path: Path) -> list[Scenario]:
    """Every row of the table, validated; errors name the file and line."""
    scenarios: list[Scenario] = []
    seen: set[str] = set()
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            scenario = Scenario.model_validate_json(line)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "row"
            raise ValueError(f"{path}:{lineno}: {where}: {first['msg']}") from error
        if scenario.name in seen:
            raise ValueError(f"{path}:{lineno}: duplicate scenario name {scenario.name}")
        if scenario.type in ROW_CHECKED_TYPES:
            try:
                stressor_class(scenario.type).check_row(scenario)
            except ValueError as error:
                raise ValueError(f"{path}:{lineno}: {error}") from error
        seen.add(scenario.name)
        scenarios.append(scenario)
    return scenarios


@cache
def builtin_scenarios() -> tuple[Scenario, ...]:
    paths = [*sorted(SCENARIO_DIR.glob("*.jsonl")), *sorted(SCENARIO_DIR.parents[1].glob(WORLD_SCENARIOS))]
    rows = [s for path in paths for s in load_scenarios(path)]
    names = [s.name for s in rows]
    if len(set(names)) != len(names):
        raise ValueError(f"{SCENARIO_DIR}: a scenario name appears in two files")
    return tuple(rows)


@cache
def _builtin_by_name() -> dict[str, Scenario]:
    """The built-in table by name, indexed once (read only: ``select`` runs per episode)."""
    return {s.name: s for s in builtin_scenarios()}


def stressor_class(kind: str) -> type[ScenarioStressor]:
    module = importlib.import_module(f"worlds.stressors.types.{kind}")
    cls: type[ScenarioStressor] = module.STRESSOR
    return cls


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text  # a bare word is a string


def split_items(text: str) -> list[str]:
    """``adhoc,failure:rate=0.1,transient=1`` -> ``['adhoc', 'failure:rate=0.1,transient=1']``: a piece with
    ``=`` but no ``:`` continues the parameters of the item before it."""
    items: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if "=" in piece and ":" not in piece and items:
            items[-1] += "," + piece
        else:
            items.append(piece)
    return items


def parse_item(item: str) -> tuple[str, dict[str, Any]]:
    name, _, rest = item.partition(":")
    overrides: dict[str, Any] = {}
    for pair in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            raise StressorSelectionError(f"stressor '{item}': parameters are key=value pairs, got '{pair}'")
        overrides[key.strip()] = _value(value.strip())
    if "rate" in overrides and not (isinstance(overrides["rate"], int | float) and 0 < overrides["rate"] <= 1):
        raise StressorSelectionError(f"stressor '{item}': rate must be a number in (0, 1]")
    return name.strip(), overrides


def select(
    items: Sequence[str], tool_names: Iterable[str] | None = None, scenarios: Sequence[Scenario] | None = None
) -> list[tuple[Scenario, dict[str, Any]]]:
    """(scenario, overrides) in the order given."""
    if not items:
        return []  # an unstressed episode (this runs once per episode): no table to index
    table = builtin_scenarios() if scenarios is None else scenarios
    tools = None if tool_names is None else set(tool_names)
    by_name = _builtin_by_name() if scenarios is None else {s.name: s for s in table}
    chosen: list[tuple[Scenario, dict[str, Any]]] = []
    for item in items:
        name, overrides = parse_item(item)
        if name in by_name:
            scenario = by_name[name]
            _check_rate(scenario, overrides, item)
            if not _applies(scenario, tools):
                raise StressorSelectionError(
                    f"stressor '{name}' targets {scenario.tools}: none is a tool of this world"
                )
            chosen.append((scenario, overrides))
            continue
        if name not in GROUPS:
            known = ", ".join(GROUPS)
            hint = did_you_mean(name, [*GROUPS, *by_name])
            raise StressorSelectionError(
                f"unknown stressor '{name}'{hint}; use a scenario name (squall stressors list) or {known}"
            )
        group = [s for s in group_members(name, table) if _applies(s, tools)]
        if not group:
            raise StressorSelectionError(f"stressor group '{name}' has no scenario for this world's tools")
        for s in group:
            _check_rate(s, overrides, item)
        chosen += [(s, overrides) for s in group]
    return chosen


def selected_rows(items: Sequence[str], scenarios: Sequence[Scenario] | None = None) -> dict[str, Scenario]:
    """Every row a run's ``--stressors`` items select, by name, as their parameters make it (``effective``). An item
    that no longer selects anything (a run stored before a row was renamed or a group changed) is skipped: its
    variants are then read with the table's row as it is."""
    rows: dict[str, Scenario] = {}
    for item in items:
        try:
            rows |= {s.name: effective(s, overrides) for s, overrides in select([item], None, scenarios)}
        except StressorSelectionError:
            continue
    return rows


def group_members(group: str, scenarios: Sequence[Scenario]) -> list[Scenario]:
    """What a group name selects, in table order: every row of its type or level (``all``: every row), except the
    rows only a name selects."""
    return [s for s in scenarios if not s.by_name_only and (group == "all" or group in (s.type, s.level))]


def groups_of(scenario: Scenario) -> list[str]:
    """The group names that select ``scenario`` (none for a ``by_name_only`` row)."""
    return [] if scenario.by_name_only else [scenario.type, scenario.level, "all"]


RATE_FREE_TYPES = frozenset({"notice", "irrelevant", "failure"})
"""Types whose gold does not depend on whether they fired; the others rewrite the gold (a format, a prerequisite,
a workaround, a required follow-up) or change the docs, so firing on only some calls would make it wrong."""
TASK_RATE_TYPES = frozenset({"outage", "missing"})
"""Types whose rate is the share of tasks they act on (drawn by task id, the same in every trial): they rewrite the
gold per task, never per call (``worlds.stressors.decline.task_drawn``)."""


def _check_rate(scenario: Scenario, overrides: dict[str, Any], item: str) -> None:
    if "rate" not in overrides or scenario.type in TASK_RATE_TYPES:
        return
    if scenario.type not in RATE_FREE_TYPES or scenario.params.get("required_followup"):
        raise StressorSelectionError(
            f"stressor '{item}': rate cannot apply to {scenario.name}: its gold assumes it always fires "
            "(rate is for notice, irrelevant and failure scenarios without a required follow-up, and the share "
            "of tasks for outage and missing)"
        )


def effective(scenario: Scenario, overrides: dict[str, Any]) -> Scenario:
    """The row as a selection item's parameters make it (``rate`` as its probability): what the episode's stressor
    reads, so the goals a scenario touches are computed from the same values (``coverage.affected_goals``)."""
    if not overrides:
        return scenario
    params = {**scenario.params, **renamed_params(overrides)}
    probability = params.pop("rate", scenario.probability)
    return scenario.model_copy(update={"params": params, "probability": float(probability)})


def _applies(scenario: Scenario, tools: set[str] | None) -> bool:
    """The world has a tool the scenario targets ('*' targets any tool)."""
    return tools is None or "*" in scenario.tools or bool(tools & set(scenario.tools))


LAYERS = ("user", "spec", "exec")
"""Outermost first: what the user says, then what the agent reads and how it must call (formats, schemas,
toolkits), then what the world answers (notices, errors, outages). A format rule must translate the agent's call
before a limitation reads its values, so selections are layered this way whatever order they were given in; within
the spec layer the toolkit modes come first (``TOOLKIT_MODES``)."""


TOOLKIT_MODES = ("search", "expand", "universe")
"""Types that decide the whole toolkit, outermost first: a tool search over a closed world, never the reverse, and
a closed world over the shortlisted share of the universe."""


def _layer(scenario: Scenario) -> tuple[int, int]:
    mode = TOOLKIT_MODES.index(scenario.type) if scenario.type in TOOLKIT_MODES else len(TOOLKIT_MODES)
    return LAYERS.index(scenario.level), mode


def build_stressors(items: Sequence[str], seed: int, tool_names: Iterable[str] | None = None) -> list[Stressor]:
    """Fresh stressors for one episode, seeded apart from each other, outermost layer first."""
    chosen = list(enumerate(select(items, tool_names)))
    chosen.sort(key=lambda entry: _layer(entry[1][0]))  # stable: the given order within a layer
    return [stressor_class(scenario.type)(scenario, seed + i, overrides) for i, (scenario, overrides) in chosen]
