"""Auto-targeted schema drift: rows with tools ``["*"]`` pick, per task, a tool the drift can act on.

A shipped row names its tools; an auto row works on any world (multidomain, smart_home, SQL-derived ones) by
choosing, seeded by its name and the task id, one core tool of the task's gold that suits its operator, and deriving
the new schema from the world's own spec: names and types, documented defaults (a JSON-schema ``default`` or
"(default 'chimes')" in the description). The pick is a pure function of (task, row): the stressor makes it in
``on_task``, and ``drifted_goals`` makes the same one, so stressor-mode isolated plans and measures exactly the
goals the drift touches. A task with no suitable tool gets no drift at all (and no isolated unit).

Stacked stressors (``--stressors drift``, ``spec``) must never both act on one call: the chain hands the agent's
call to the earlier stressor first, which would see it in the later one's schema. Picks skip tools whose gold no
longer matches the world's spec (an earlier row rewrote it), which the table order makes enough among drifts: named
rows first, then the auto rows that restructure calls, then those that only make a parameter explicit
(``required_swap``, ``default_flip``: they need a call leaving the parameter out, so they never pick what an earlier
one made explicit). Restructuring picks also leave alone what other rows read of a call (``claims``): named drift rows,
format rules, prerequisites, limitations, required follow-ups.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, NamedTuple

from sim.core import GoldCall, Task, ToolSpec
from sim.core.frozen import thaw
from sim.core.task import GOLD_ARGUMENTS_UNKNOWN
from worlds.stressors.scenario import Scenario

NO_DEFAULT = object()
"""``documented_default`` of a parameter that documents none (a default may itself be None or False)."""

PARAM_SYNONYMS = {
    "city": "location",
    "city_id": "location_id",
    "name": "title",
    "query": "search_term",
    "limit": "max_results",
    "quantity": "qty",
    "device_id": "device",
    "contact_id": "contact",
    "level": "value",
    "percent": "pct",
    "celsius": "temperature_c",
    "days": "day_count",
    "on": "power_on",
    "enabled": "is_enabled",
    "mode": "setting",
    "type": "kind",
    "status": "state",
    "text": "body",
    "message": "body",
    "time": "at",
    "due": "due_at",
    "label": "tag",
    "room": "area",
    "topic": "category",
    "symbol": "ticker",
}
"""Whole-name renames a real v2 might make; a name not here renames its last word (``recipe_id`` ->
``recipe_ref``), else gets a ``_value`` suffix."""
WORD_SYNONYMS = {"id": "ref", "ids": "refs", "count": "total", "number": "no"}


class DriftPlan(NamedTuple):
    """What a drift row does to one task: the tools it targets and its operator's params."""

    tools: frozenset[str]
    params: dict[str, Any]


def plan_for(task: Task, scenario: Scenario, params: Mapping[str, Any] | None = None) -> DriftPlan | None:
    """The row's own tools and params, or for an auto row its seeded pick for this task (None: nothing fits)."""
    params = dict(scenario.params if params is None else params)
    if "*" not in scenario.tools:
        return DriftPlan(frozenset(scenario.tools), params)
    # Gold that names operations without their arguments (ToolBench's queries) fits no real schema's required
    # parameters: what it says is all a pick can read.
    known = GOLD_ARGUMENTS_UNKNOWN not in task.tags
    specs = (world_specs(task.world) if known else None) or inferred_specs(task)
    from_goal = int(params.get("from_goal", 0))
    fits = [(tool, _fit(task, specs, tool, params, from_goal)) for tool in _candidates(task, specs, from_goal)]
    options = [(tool, fit) for tool, fit in fits if fit is not None]
    if not options:
        return None
    rng = random.Random(f"{scenario.name}:{task.id}:{params.get('seed', 0)}")
    tool, fit = rng.choice(options)
    return DriftPlan(frozenset({tool}), {**params, **fit(rng)})


def drifted_goals(task: Task, scenario: Scenario) -> list[int]:
    """Goals from ``from_goal`` on any of whose gold paths calls a tool the row drifts for this task."""
    plan = plan_for(task, scenario)
    if plan is None:
        return []
    start = int(plan.params.get("from_goal", 0))
    return [
        g
        for g, goal in enumerate(task.goals)
        if g >= start and any(call.name in plan.tools for path in goal.paths() for call in path)
    ]


# the world's schema -----------------------------------------------------------------------------------------


def world_specs(world: str) -> dict[str, ToolSpec] | None:
    """The world's specs by name: a built-in world's (its data, none of its tasks), else those of an imported API
    loaded in this process (``worlds.registry.imported_world_specs``); None for a world neither knows."""
    from worlds.registry import imported_world_specs  # stressors need a world's package only when a pick reads specs

    built = _builtin_specs(world)
    return built if built is not None else imported_world_specs(world)


@cache
def _builtin_specs(world: str) -> dict[str, ToolSpec] | None:
    from worlds.registry import BUILTIN_WORLDS

    factory = BUILTIN_WORLDS.get(world)
    return None if factory is None else {s.name: s for s in factory([]).tool_specs()}


def inferred_specs(task: Task) -> dict[str, ToolSpec]:
    """Specs read off the gold alone, for a world the registry cannot build: JSON types of the values given,
    required = given in every call. No defaults, so the default-based operators find nothing."""
    calls: dict[str, list[GoldCall]] = {}
    for goal in task.goals:
        for path in goal.paths():
            for call in path:
                calls.setdefault(call.name, []).append(call)
    specs = {}
    for name, made in calls.items():
        props = {k: {"type": _json_type(v)} for call in made for k, v in call.arguments.items()}
        required = [k for k in props if all(k in c.arguments for c in made)]
        specs[name] = ToolSpec(name=name, description="", parameters={"properties": props, "required": required})
    return specs


_DEFAULT_RE = re.compile(
    r"\bdefault(?:s to|:)?\s+(?:'([^']*)'|\"([^\"]*)\"|(-?[0-9]+(?:\.[0-9]+)?\b|[A-Za-z_][A-Za-z0-9_]*))", re.I
)


def documented_default(prop: Mapping[str, Any]) -> Any:
    """A parameter's default: the JSON-schema ``default``, else one its description states ("(default 3)",
    "default 'chimes'"), typed by the schema; NO_DEFAULT when it documents none we can read for sure."""
    if "default" in prop:
        return thaw(prop["default"])
    match = _DEFAULT_RE.search(str(prop.get("description", "")))
    if match is None:
        return NO_DEFAULT
    quoted = match.group(1) if match.group(1) is not None else match.group(2)
    text = quoted if quoted is not None else match.group(3)
    kind, enum = prop.get("type"), prop.get("enum")
    value: Any = NO_DEFAULT
    if kind == "boolean" and text.lower() in ("true", "false"):
        value = text.lower() == "true"
    elif kind == "integer" and re.fullmatch(r"-?[0-9]+", text):
        value = int(text)
    elif kind == "number" and re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", text):
        value = float(text)
    elif kind == "string" and (quoted is not None or (enum and text in enum)):
        value = text  # a bare word is a default only where the enum says it is a value ("the default playlist")
    if enum and value not in enum:
        return NO_DEFAULT
    return value


# choosing a tool ----------------------------------------------------------------------------------------------


def _calls(task: Task, tool: str, from_goal: int = 0) -> list[GoldCall]:
    return [c for goal in task.goals[from_goal:] for path in goal.paths() for c in path if c.name == tool]


EXPLICIT_OPS = frozenset({"required_swap", "default_flip"})
"""Operators whose new-schema calls still match the old spec (a parameter made explicit)."""


def _candidates(task: Task, specs: Mapping[str, ToolSpec], from_goal: int) -> list[str]:
    """Core tools of the gold from ``from_goal`` on whose every gold call still matches the world's spec (no earlier
    stressor rewrote it), in name order."""
    core = {c.name for goal in task.goals[from_goal:] for path in goal.paths() for c in path if c.role == "core"}
    return sorted(t for t in core if t in specs and all(_conforms(c, specs[t]) for c in _calls(task, t)))


Claims = dict[str, frozenset[str] | None]
"""Tool -> the arguments other rows read in its calls (None: all of them); a tool in it is also read by name."""


@cache
def claims() -> Claims:
    """What other rows read of a tool's calls, so a drift stacked with them never hides it: named drift rows and
    limitations read whole calls, format rules their formatted arguments, prerequisites the prerequisite's and the
    dependent tool's names and shared arguments, a notice whose follow-up the gold requires its tool's name."""
    from worlds.stressors.catalog import builtin_scenarios  # the catalog imports the types: not at import time

    read: dict[str, set[str] | None] = {}

    def claim(tool: str, args: set[str] | None) -> None:
        earlier = read.get(tool, set())
        read[tool] = None if args is None or earlier is None else earlier | args

    for s in builtin_scenarios():
        if "*" in s.tools:
            continue
        for tool in s.tools:
            if s.type in ("drift", "limitation"):
                claim(tool, None)
            elif s.type == "adhoc":
                claim(tool, set(s.params.get("args", ())))
            elif s.type == "dependency":
                claim(tool, set(s.params.get("copy_args", ())))
                claim(str(s.params["requires"]), set(s.params.get("copy_args", ())))
            elif s.type == "notice" and s.params.get("required_followup"):
                claim(tool, set())
    return {tool: None if args is None else frozenset(args) for tool, args in read.items()}


def free(tool: str, params: list[str] | None) -> bool:
    """No other row reads ``params`` of the tool's calls (None: its name, so every parameter too)."""
    claimed = claims()
    if tool not in claimed:
        return True
    args = claimed[tool]
    return params is not None and args is not None and not set(params) & args


def _properties(spec: ToolSpec) -> dict[str, Any]:
    """Top-level parameters, a shared schema's reference (an imported API's ``#/$defs/NAME``) read as its target
    with the keys beside it laid over, so its type, enum and default are seen."""
    props, defs = spec.parameters.get("properties", {}), spec.parameters.get("$defs", {})
    if not isinstance(props, Mapping):
        return {}
    return {name: _dereferenced(prop, defs if isinstance(defs, Mapping) else {}) for name, prop in props.items()}


def _dereferenced(prop: Any, defs: Mapping[str, Any]) -> Any:
    ref = prop.get("$ref") if isinstance(prop, Mapping) else None
    target = defs.get(ref[len(_DEFS) :]) if isinstance(ref, str) and ref.startswith(_DEFS) else None
    if not isinstance(target, Mapping):
        return prop
    return {**target, **{k: v for k, v in prop.items() if k != "$ref"}}


_DEFS = "#/$defs/"


def _conforms(call: GoldCall, spec: ToolSpec) -> bool:
    props = _properties(spec)
    required = spec.parameters.get("required", [])
    return all(k in call.arguments for k in required) and all(
        k in props and _json_type(v) in _accepted(props[k].get("type")) for k, v in call.arguments.items()
    )


def _accepted(kind: Any) -> set[str]:
    kinds = set(kind) if isinstance(kind, list) else {kind} if isinstance(kind, str) else set(_TYPES.values())
    return kinds | {"integer"} if "number" in kinds else kinds  # JSON: every integer is a number


_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array", dict: "object"}


def _json_type(value: Any) -> str:
    return next((name for kind, name in _TYPES.items() if isinstance(value, kind)), "null")


Fit = Callable[[random.Random], dict[str, Any]]
"""The operator's params for a chosen tool, drawn with the seeded rng."""


def _fit(task: Task, specs: Mapping[str, ToolSpec], tool: str, params: Mapping[str, Any], from_goal: int) -> Fit | None:
    """How the row's operator would drift ``tool``, or None when it cannot."""
    spec, calls = specs[tool], _calls(task, tool, from_goal)
    props = _properties(spec)
    given = [p for p in props if any(p in c.arguments for c in calls)]
    op = params["op"]
    if op == "rename_endpoint":
        names = set(specs)
        return (lambda rng: {"new_name": evolved_name(tool, names)}) if free(tool, None) else None
    if op == "rename_param":
        # A parameter every call gives, so every drifted call changes; one with a known synonym first.
        given = [p for p in given if free(tool, [p])]
        every = [p for p in given if all(p in c.arguments for c in calls)] or given
        known = [p for p in every if p in PARAM_SYNONYMS] or every
        if not known:
            return None
        required = set(spec.parameters.get("required", []))

        def renamed(rng: random.Random) -> dict[str, Any]:
            param = rng.choice(known)
            return {"param": param, "new_param": renamed_param(param, set(props)), "required": param in required}

        return renamed
    if op == "type_drift":
        typed = [p for p in given if props[p].get("type") in ("integer", "boolean") and free(tool, [p])]
        if not typed:
            return None

        def stringly(rng: random.Random) -> dict[str, Any]:
            param = rng.choice(typed)
            return {"param": param, "from": props[param]["type"]}

        return stringly
    if op in EXPLICIT_OPS:
        # An optional parameter with a documented default that some call leaves out: the calls that relied on it.
        # No claims apply: the call keeps its name and shape, so a stressor reading it still sees it.
        required = set(spec.parameters.get("required", []))
        relied = [
            p
            for p in props
            if p not in required
            and documented_default(props[p]) is not NO_DEFAULT
            and any(p not in c.arguments for c in calls)
            and (op == "required_swap" or flipped_defaults(props[p]))
        ]
        if not relied:
            return None

        def defaults(rng: random.Random) -> dict[str, Any]:
            param = rng.choice(relied)
            chosen = {"param": param, "default": documented_default(props[param])}
            if op == "default_flip":
                chosen["new_default"] = rng.choice(flipped_defaults(props[param]))
            return chosen

        return defaults
    if op == "nest_params":
        nested = nesting(spec)
        if len(props) < 2 or not any(len(c.arguments) >= 2 for c in calls) or not free(tool, nested["params"]):
            return None
        return lambda rng: nested
    return None


# the new schema's names -----------------------------------------------------------------------------------------


def evolved_name(name: str, taken: set[str]) -> str:
    """``get_x`` -> ``fetch_x``, ``list_x`` -> ``search_x``, else a version bump (``x_v2``, ``x_v2`` -> ``x_v3``);
    a name the world already uses falls back to the version bump."""
    for old, new in (("get_", "fetch_"), ("list_", "search_")):
        if name.startswith(old) and new + name[len(old) :] not in taken:
            return new + name[len(old) :]
    match = re.fullmatch(r"(.*)_v([0-9]+)", name)
    stem, version = (match.group(1), int(match.group(2))) if match else (name, 1)
    while f"{stem}_v{version + 1}" in taken:
        version += 1
    return f"{stem}_v{version + 1}"


def renamed_param(param: str, taken: set[str]) -> str:
    """A semantic equivalent the tool does not already use: the synonym table, else the last word's synonym, else
    a ``_value`` suffix (always free of the old name)."""
    words = param.split("_")
    options = [PARAM_SYNONYMS.get(param, "")]
    if words[-1] in WORD_SYNONYMS:
        options.append("_".join([*words[:-1], WORD_SYNONYMS[words[-1]]]))
    options.append(f"{param}_value")
    return next(o for o in options if o and o != param and o not in taken)


def flipped_defaults(prop: Mapping[str, Any]) -> list[Any]:
    """Values a new version could default to instead: another enum value, the other boolean, a bound of a numeric
    range (or one more). Empty for free text: no flip changes it meaningfully."""
    old = documented_default(prop)
    if prop.get("enum"):
        return [v for v in prop["enum"] if v != old]
    kind = prop.get("type")
    if kind == "boolean":
        return [not old]
    if kind in ("integer", "number"):
        # The lower bound first: a smaller page or window changes more answers than a larger one that the data
        # cannot fill (three headlines a topic read the same at limit 5 and 10).
        bounds = [prop[k] for k in ("minimum", "maximum") if k in prop]
        return [next(b for b in bounds if b != old)] if any(b != old for b in bounds) else [old + 1]
    return []


def nesting(spec: ToolSpec) -> dict[str, Any]:
    """Every parameter into one object; with three or more, the first required one (the target's id) stays
    top-level and the rest become ``options``."""
    props = list(_properties(spec))
    required = [p for p in spec.parameters.get("required", []) if p in props]
    if len(props) >= 3 and required:
        nested, into = [p for p in props if p != required[0]], "options"
    else:
        nested, into = props, "request"
    while into in props:
        into = f"{into}_v2"
    return {"params": nested, "into": into}
