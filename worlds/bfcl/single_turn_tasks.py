"""One BFCL single-turn entry as a squall task: its question, its functions and its possible answers.

- ``Goal.user.explicit``: the question's last user message. BFCL's system messages, and any earlier messages of
  the question (a few ``live_irrelevance`` entries carry a short conversation), go to the world's instructions for
  that entry.
- ``Goal.tools``: the entry's functions (names rewritten ``.`` -> ``_`` as BFCL does for OpenAI-style models).
- ``Goal.gold``: one ``GoldCall`` per ground-truth call; ``accepted`` = BFCL's possible answers verbatim (``""``:
  may be omitted) and ``arguments`` = each parameter's first accepted value that is not ``""`` (an accepted dict,
  ``{key: [accepted values]}``, as the dict of each key's first value). A parameter that may
  be omitted is left out of ``arguments`` when its only value is ``""`` (unless the schema requires it: then it is
  ``""``, which BFCL's string check accepts), and when the function's schema lacks it
  (two ``parallel_multiple`` entries accept a parameter the function does not declare: giving it would be an
  unexpected parameter to BFCL's own checker).
- Irrelevance entries: no gold, ``outcome="decline"``. ``live_relevance`` has no possible answers (any call passes):
  its gold is one call of the entry's first function with placeholder values for its required parameters, so the
  oracle makes a call. Only ``bfcl_ast`` means anything there: squall's value-comparing judges (core API accuracy,
  conversation success) hold an agent to the placeholders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sim.core import Goal, GoldCall, Task, ToolSpec, UserIntent
from worlds.bfcl.gorilla_types import openai_name, tool_spec

DECLINE_CATEGORIES = frozenset({"irrelevance", "live_irrelevance"})
RELEVANCE = "live_relevance"
_PLACEHOLDERS: dict[str, Any] = {"integer": 0, "number": 0.0, "boolean": False, "array": [], "object": {}}


def entry_category(entry_id: str) -> str:
    """The category an entry's id names (``live_simple_58-27-0`` -> ``live_simple``)."""
    return entry_id.rsplit("_", 1)[0]


def entry_specs(entry: Mapping[str, Any]) -> list[ToolSpec]:
    return [tool_spec(doc) for doc in entry.get("function") or []]


def entry_instructions(entry: Mapping[str, Any]) -> str:
    """The entry's system messages, then any conversation before its last user message."""
    messages = _messages(entry)
    last = _last_user(messages)
    system = [str(m.get("content") or "").strip() for m in messages if m.get("role") == "system"]
    earlier = [f"{m.get('role')}: {m.get('content')}" for m in messages[:last] if m.get("role") != "system"]
    parts = [s for s in system if s]
    if earlier:
        parts.append("The conversation so far:\n" + "\n".join(earlier))
    return "\n\n".join(parts)


def entry_task(entry: Mapping[str, Any], answer: Mapping[str, Any] | None, world: str) -> Task:
    """The task of one entry (``answer``: its possible-answer line; None for the categories without one)."""
    entry_id = str(entry["id"])
    category = entry_category(entry_id)
    specs = entry_specs(entry)
    messages = _messages(entry)
    request = str(messages[_last_user(messages)].get("content") or "") if messages else ""
    if category in DECLINE_CATEGORIES:
        gold: list[GoldCall] = []
    elif category == RELEVANCE:
        gold = [_any_call(specs[0])] if specs else []
    else:
        if answer is None:
            raise ValueError(f"{entry_id}: no possible answer")
        schemas = {s.name: s.parameters for s in specs}
        gold = [_gold_call(call, schemas) for call in answer["ground_truth"]]
    return Task(
        id=entry_id,
        world=world,
        description=f"BFCL {category} entry {entry_id}",
        tags=["bfcl", f"bfcl:{category}"],
        goals=[
            Goal(
                user=UserIntent(explicit=request),
                gold=gold,
                tools=[s.name for s in specs],
                outcome="decline" if category in DECLINE_CATEGORIES else "solve",
            )
        ],
    )


def _gold_call(call: Mapping[str, Any], schemas: Mapping[str, Mapping[str, Any]]) -> GoldCall:
    ((name, accepted),) = call.items()
    name = openai_name(name)
    declared = schemas.get(name, {}).get("properties") or {}
    required = schemas.get(name, {}).get("required") or []
    arguments = {}
    for param, values in accepted.items():
        given = [v for v in values if v != ""]
        if given and (param in declared or "" not in values):
            arguments[param] = _concrete(given[0])
        elif not given and "" in values and param in required:
            arguments[param] = ""  # a required string BFCL accepts only as "" (it standardises to "")
    return GoldCall(name=name, arguments=arguments, accepted=dict(accepted))


def _concrete(value: Any) -> Any:
    """A value a call can give for an accepted one: BFCL writes an accepted dict as ``{key: [accepted values]}``
    (in a list of dicts too); the call's dict takes each key's first value that is not ``""`` (keys that may only be
    omitted left out). Deeper values are kept as they are: BFCL compares a dict's values flat."""
    if isinstance(value, dict):
        return {k: next(v for v in vs if v != "") for k, vs in value.items() if any(v != "" for v in vs)}
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [_concrete(v) for v in value]
    return value


def _any_call(spec: ToolSpec) -> GoldCall:
    """A call of ``spec`` with a placeholder for each required parameter (its default, its first allowed value, or
    an empty value of its type): what BFCL's relevance check asks for is a call, whatever its values."""
    properties: Mapping[str, Any] = spec.parameters.get("properties") or {}
    arguments = {}
    for param in spec.parameters.get("required") or []:
        schema = properties.get(param) or {}
        if "default" in schema:
            arguments[param] = schema["default"]
        elif schema.get("enum"):
            arguments[param] = schema["enum"][0]
        else:
            arguments[param] = _PLACEHOLDERS.get(str(schema.get("type")), "")
    return GoldCall(name=spec.name, arguments=arguments)


def _messages(entry: Mapping[str, Any]) -> Sequence[Mapping[str, Any]]:
    turns = entry.get("question") or []
    return list(turns[0]) if turns else []


def _last_user(messages: Sequence[Mapping[str, Any]]) -> int:
    return max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=0)
