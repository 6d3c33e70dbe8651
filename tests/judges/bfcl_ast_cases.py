"""The cases of the bfcl_ast agreement suite: BFCL's single-turn entries, model outputs built from their gold
(exact, systematically damaged, randomly mutated), and both checkers' verdicts on one output.

BFCL's side calls its own ``ast_checker`` (and ``is_empty_output`` for the relevance categories) from the wheel,
as its evaluation runner does for a function-calling model. Function names are rewritten ``.`` -> ``_`` on both
sides first, as BFCL does for OpenAI-style models: its checker then never consults its model table, whose module
imports every provider's SDK, so a stand-in replaces that module when those SDKs are absent (``bfcl_checker``).
squall's side is an ``EpisodeResult`` whose goal 0 holds the calls, scored by the ``bfcl_ast`` judge.
"""

from __future__ import annotations

import copy
import importlib
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from judges.bfcl.bfcl_ast import BfclAst
from sim.core import EpisodeResult, Event, Task, ToolCall, ToolSpec, WorldContext
from sim.core.frozen import thaw
from worlds.bfcl.categories import SINGLE_TURN
from worlds.bfcl.gorilla_types import openai_name
from worlds.bfcl.single_turn import single_turn_pack
from worlds.bfcl.source import answer_file, data_file, read_lines

RELEVANCE_CATEGORIES = ("irrelevance", "live_irrelevance", "live_relevance")
AST_CATEGORIES = tuple(c for c in SINGLE_TURN if c not in RELEVANCE_CATEGORIES)
UNKNOWN = "no_such_function"
Calls = list[tuple[str, dict[str, Any]]]
_ODD_TYPES = {
    "value_error:list/tuple": "value_error:list",
    "dict_checker:unclear": "value_error:dict",
    "list_dict_checker:unclear": "value_error:list_dict",
}
_CHECKERS = ("simple_function_checker:", "multiple_function_checker:", "parallel_function_checker_no_order:")


@dataclass(frozen=True)
class Entry:
    category: str
    task: Task
    tools: list[ToolSpec]
    functions: list[dict[str, Any]]  # BFCL's function docs, names rewritten
    answer: list[dict[str, Any]]  # BFCL's possible answers, names rewritten

    def gold(self) -> Calls:
        return [(g.name, thaw(g.arguments)) for g in self.task.goals[0].gold]


@cache
def bfcl_checker() -> tuple[Callable[..., dict[str, Any]], Any, Callable[[Any], bool]]:
    """BFCL's ``ast_checker``, its Python language value and ``is_empty_output``."""
    name = "bfcl_eval.constants.model_config"
    if name not in sys.modules:
        try:
            importlib.import_module(name)
        except ImportError:  # the provider SDKs it imports are not installed: the checker needs none of them here
            stand_in = types.ModuleType(name)
            stand_in.MODEL_CONFIG_MAPPING = {}  # type: ignore[attr-defined]
            sys.modules[name] = stand_in
    checker = importlib.import_module("bfcl_eval.eval_checker.ast_eval.ast_checker")
    language = importlib.import_module("bfcl_eval.constants.enums").Language.PYTHON
    empty = importlib.import_module("bfcl_eval.utils").is_empty_output
    return checker.ast_checker, language, empty


@cache
def entries(category: str) -> tuple[Entry, ...]:
    pack = single_turn_pack(category)
    raw = {str(e["id"]): e for e in read_lines(data_file(category))}
    answers: dict[str, list[dict[str, Any]]] = {}
    if category in AST_CATEGORIES:
        answers = {str(a["id"]): a["ground_truth"] for a in read_lines(answer_file(category))}
    out = []
    for task in pack.tasks():
        functions = [{**f, "name": openai_name(f["name"])} for f in raw[task.id]["function"]]
        answer = [{openai_name(k): v for k, v in call.items()} for call in answers.get(task.id, [])]
        tools = pack.new_world(0, WorldContext(task=task)).specs()
        out.append(Entry(category, task, tools, functions, answer))
    return tuple(out)


def bfcl_verdict(entry: Entry, calls: Calls) -> tuple[bool, str] | None:
    """BFCL's (valid, error type in squall's words) on a model output; None where BFCL's checker raises."""
    ast_checker, python, is_empty = bfcl_checker()
    output = [{name: copy.deepcopy(args)} for name, args in calls]
    if entry.category in RELEVANCE_CATEGORIES:
        if "irrelevance" in entry.category:
            return (True, "") if is_empty(output) else (False, "irrelevance:called")
        return (False, "relevance:no_call") if is_empty(output) else (True, "")
    try:
        result = ast_checker(entry.functions, output, copy.deepcopy(entry.answer), python, entry.category, "squall")
    except Exception:
        return None
    if result["valid"]:
        return True, ""
    kind = str(result["error_type"])
    kind = _ODD_TYPES.get(kind, kind)
    return False, next((kind.removeprefix(p) for p in _CHECKERS if kind.startswith(p)), kind)


def episode(entry: Entry, calls: Calls) -> EpisodeResult:
    """An episode whose agent made ``calls`` for the entry's goal, as the runtime records them (a function outside
    the toolkit: refused, an error event)."""
    task, names = entry.task, {t.name for t in entry.tools}
    events = [Event(kind="user_message", turn=0, goal=0, content=task.goals[0].user.explicit)]
    for i, (name, args) in enumerate(calls):
        if name in names:
            call = ToolCall(id=f"call_0_{i}", name=name, arguments=args)
            events.append(Event(kind="tool_call", turn=0, goal=0, step=1, call=call))
        else:
            events.append(Event(kind="error", turn=0, goal=0, step=1, fault="agent", code="agent:unknown_tool"))
    events.append(Event(kind="agent_message", turn=0, goal=0, content="Done."))
    return EpisodeResult(
        episode_id=f"{task.id}#0", task_id=task.id, trial=0, seed=0, world=task.world, agent="agreement",
        user="scripted", task=task, tools=entry.tools, events=events, turns_played=1, goals_played=1,
    )  # fmt: skip


async def squall_verdict(entry: Entry, calls: Calls) -> tuple[bool, str]:
    score = await BfclAst().score(episode(entry, calls))
    reason = next((e.split(":", 2)[2] for e in score.errors), "")
    return score.value == 1.0, reason


def properties(entry: Entry, name: str) -> dict[str, Any]:
    spec = next((t for t in entry.tools if t.name == name), None)
    return dict(spec.parameters.get("properties") or {}) if spec is not None else {}


def placeholder(schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    return {"integer": 1, "number": 1.5, "boolean": True, "array": ["a"], "object": {"k": "v"}}.get(str(kind), "x")


def value_changes(value: Any) -> Iterator[tuple[str, Any]]:
    """(damage kind, damaged value) for one argument value."""
    if isinstance(value, bool):
        yield "value_changed", not value
        yield "type_changed", str(value).lower()
        yield "type_changed", int(value)
    elif isinstance(value, int):
        yield "value_changed", value + 1
        yield "int_to_float", float(value)
        yield "type_changed", str(value)
    elif isinstance(value, float):
        yield "value_changed", value + 1.5
        if value.is_integer():
            yield "float_to_int", int(value)
        yield "type_changed", str(value)
    elif isinstance(value, str):
        yield "value_changed", value + "zz"
        yield "type_changed", 7
        yield "string_case", value.upper()
        yield "string_punctuation", f" {value}."
        yield "string_punctuation", value.replace(" ", "-")
        yield "string_quote", value.replace('"', "'") + "'"
        yield "string_other_mark", value + "!"
    elif isinstance(value, list):
        yield "list_item_dropped", value[:-1]
        yield "list_item_added", [*value, value[0] if value else "x"]
        yield "list_reordered", list(reversed(value))
        yield "type_changed", ",".join(map(str, value))
        yield "list_items_retyped", [float(v) if type(v) is int else str(v) if type(v) is float else v for v in value]
        yield "list_items_case", [v.upper() if isinstance(v, str) else v for v in value]
    elif isinstance(value, dict):
        if value:
            key = next(iter(value))
            yield "dict_key_dropped", {k: v for k, v in value.items() if k != key}
            yield "dict_value_changed", {**value, key: f"{value[key]}zz"}
            yield "dict_value_case", {k: v.upper() if isinstance(v, str) else v for k, v in value.items()}
        yield "dict_key_added", {**value, "extra_key": "x"}
        yield "type_changed", [value]
    elif value is None:
        yield "type_changed", "None"
