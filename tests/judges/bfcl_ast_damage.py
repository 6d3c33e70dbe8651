"""Model outputs for the bfcl_ast agreement suite: the gold systematically damaged, and seeded random mutations."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from tests.judges.bfcl_ast_cases import UNKNOWN, Calls, Entry, placeholder, properties, value_changes


def _with(calls: Calls, index: int, name: str, args: dict[str, Any]) -> Calls:
    return [*calls[:index], (name, args), *calls[index + 1 :]]


def damaged(entry: Entry) -> Iterator[tuple[str, Calls]]:
    """(damage kind, model output) for every systematic damage of the entry's gold."""
    calls = entry.gold()
    tools = [t.name for t in entry.tools]
    if not calls:
        if tools:
            props = properties(entry, tools[0])
            yield "call_added", [(tools[0], {p: placeholder(s) for p, s in list(props.items())[:2]})]
            yield "call_added_no_args", [(tools[0], {})]
        yield "unknown_function", [(UNKNOWN, {})]
        return
    for i in range(len(calls)):
        yield "call_dropped", calls[:i] + calls[i + 1 :]
    yield "call_added", [*calls, calls[0]]
    yield "unknown_function_added", [*calls, (UNKNOWN, {})]
    if len(calls) > 1:
        yield "order_swapped", list(reversed(calls))
        yield "order_rotated", [*calls[1:], calls[0]]
    for other in tools:
        if other != calls[0][0]:
            yield "function_renamed", _with(calls, 0, other, calls[0][1])
            break
    for i in sorted({0, len(calls) - 1}):  # values damaged in the first and the last call (the suite's runtime)
        name, args = calls[i]
        props = properties(entry, name)
        for param, value in args.items():
            yield "param_dropped", _with(calls, i, name, {k: v for k, v in args.items() if k != param})
            for kind, changed in value_changes(value):
                yield kind, _with(calls, i, name, {**args, param: changed})
        yield "unexpected_param", _with(calls, i, name, {**args, "unexpected_param": 1})
        for param, schema in props.items():
            if param not in args:
                yield "optional_added", _with(calls, i, name, {**args, param: placeholder(schema)})


def _choose_accepted(rng: random.Random, values: list[Any]) -> tuple[bool, Any]:
    """(give it, value) from an accepted list: ``""`` means leaving it out; an accepted dict gives concrete values."""
    value = rng.choice(values) if values else "x"
    if value == "" and rng.random() < 0.7:
        return False, None
    if isinstance(value, dict):
        value = {k: rng.choice(vs) for k, vs in value.items() if vs and rng.random() < 0.9}
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        value = [{k: rng.choice(vs) for k, vs in d.items() if vs} for d in value]
    return True, value


_POOL: list[Any] = ["", "x", "X", " ", "None", 0, 1, -1, 2.5, 1.0, True, False, None, [], [1], ["a"], {}, {"a": 1}]


def mutate(entry: Entry, rng: random.Random) -> Calls:
    """The gold with one to three random changes: another accepted value (which must still pass), a damaged or
    random value, a parameter dropped or added, a call dropped, added, renamed or moved."""
    calls = entry.gold()
    tools = [t.name for t in entry.tools]
    accepted = [g.accepted for g in entry.task.goals[0].gold]
    for _ in range(rng.randint(1, 3)):
        op = rng.random()
        if not calls or op < 0.08:
            if tools and rng.random() < 0.8:
                name = rng.choice(tools)
                props = properties(entry, name)
                args = {p: placeholder(s) for p, s in props.items() if rng.random() < 0.5}
                calls.insert(rng.randint(0, len(calls)), (name, args))
            else:
                calls.append((UNKNOWN, {}))
            continue
        i = rng.randrange(len(calls))
        name, args = calls[i]
        args = dict(args)
        if op < 0.14:
            del calls[i]
            continue
        if op < 0.2:
            calls.insert(rng.randrange(len(calls) + 1), calls.pop(i))
            continue
        if op < 0.25 and tools:
            calls[i] = (rng.choice(tools), args)
            continue
        params = list(args)
        if op < 0.55 and i < len(accepted):  # another accepted value, or a legal omission
            options = accepted[i] if calls[i][0] == entry.task.goals[0].gold[i].name else {}
            if options:
                param = rng.choice(sorted(options))
                give, value = _choose_accepted(rng, list(options[param]))
                args = {**args, param: value} if give else {k: v for k, v in args.items() if k != param}
        elif op < 0.8 and params:
            param = rng.choice(params)
            changes = list(value_changes(args[param]))
            args[param] = rng.choice(changes)[1] if changes and rng.random() < 0.7 else rng.choice(_POOL)
        elif op < 0.9 and params:
            del args[rng.choice(params)]
        else:
            props = properties(entry, name)
            extra = rng.choice([*props, "unexpected_param"]) if props else "unexpected_param"
            schema = props.get(extra, {})
            args[extra] = placeholder(schema) if rng.random() < 0.5 else rng.choice(_POOL)
        calls[i] = (name, args)
    return calls
