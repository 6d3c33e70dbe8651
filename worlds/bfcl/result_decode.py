"""A model's raw output in a BFCL result file, decoded into calls the way BFCL's evaluation decodes it.

Two shapes, told apart by the value itself (BFCL knows them from the model's handler):
- function calling: a list of ``{function name: arguments}`` dicts, the arguments a JSON text (or already a JSON
  object). Single-turn (BFCL's ``decode_ast``, OpenAI-style handler): each dict's first key is one call, and a
  text that is not JSON, or arguments that are not an object, make the output undecodable. Multi-turn
  (``decode_execute``): every key of every dict is a call.
- prompting: a text like ``[func(a=1), mod.other(b='x')]`` (backticks and missing brackets tolerated, as BFCL's
  ``default_decode_ast_prompting``), parsed with ``ast`` and its keyword arguments read as BFCL reads them (a bare
  name is its text, ``-x`` negates x, a call without keywords is its source text, one with keywords a nested
  ``{name: arguments}``). Never ``eval``: where BFCL would ``eval`` (arithmetic, a lambda), squall computes
  arithmetic on number literals and calls anything else undecodable.

Multi-turn results are a list per turn of a list per step; a step that decodes to no call is left out, as BFCL's
runner does, and an undecodable step is kept with its reason (BFCL skips it; squall records it as an agent fault).
Function names are rewritten ``.`` -> ``_`` as squall's BFCL tools carry them.
"""

from __future__ import annotations

import ast
import json
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from worlds.bfcl.gorilla_types import openai_name

Call = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Step:
    """One model response: its calls, or why it could not be decoded (then ``calls`` is empty)."""

    calls: tuple[Call, ...] = ()
    error: str | None = None


@dataclass(frozen=True)
class Turns:
    """A multi-turn output: each turn's steps, or why the whole output is unusable (BFCL fails the entry)."""

    turns: tuple[tuple[Step, ...], ...] = ()
    error: str | None = None


class _Undecodable(ValueError):
    pass


def decode_single(raw: Any) -> Step:
    """A single-turn output as BFCL's AST evaluation decodes it."""
    try:
        if isinstance(raw, str):
            return Step(tuple(_prompting(raw)))
        if not isinstance(raw, list):
            raise _Undecodable(f"a {type(raw).__name__}, not a list of calls or a text")
        calls = []
        for item in raw:
            if not isinstance(item, dict) or not item:
                raise _Undecodable("an item is not a {function: arguments} object")
            name = next(iter(item))
            calls.append((openai_name(str(name)), _arguments(item[name])))
        return Step(tuple(calls))
    except _Undecodable as error:
        return Step(error=str(error))


def decode_multi(raw: Any, turns: int) -> Turns:
    """A multi-turn output: ``turns`` is how many the entry has (another count: BFCL's force-terminated entry)."""
    if not isinstance(raw, list) or not all(isinstance(turn, list) for turn in raw):
        return Turns(error="inference_error: not a list of turns, each a list of model responses")
    if len(raw) != turns:
        return Turns(error=f"force_terminated: {len(raw)} turns in the result, {turns} in the entry")
    decoded = tuple(tuple(s for s in (_execute_step(step) for step in turn) if s.calls or s.error) for turn in raw)
    return Turns(decoded)


def _execute_step(raw: Any) -> Step:
    """One multi-turn step as BFCL's ``decode_execute`` reads it (every key of every dict a call)."""
    try:
        if isinstance(raw, str):
            return Step(tuple(_prompting(raw)))
        items = [raw] if isinstance(raw, dict) else raw
        if not isinstance(items, list):
            raise _Undecodable(f"a {type(raw).__name__}, not a list of calls or a text")
        calls = []
        for item in items:
            if not isinstance(item, dict):
                raise _Undecodable("an item is not a {function: arguments} object")
            calls += [(openai_name(str(name)), _arguments(arguments)) for name, arguments in item.items()]
        return Step(tuple(calls))
    except _Undecodable as error:
        return Step(error=str(error))


def _arguments(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as error:
            raise _Undecodable(f"arguments are not JSON: {error}") from None
    if not isinstance(value, dict):
        raise _Undecodable(f"arguments are a {type(value).__name__}, not an object")
    return value


def _prompting(text: str) -> list[Call]:
    text = text.strip("`\n ")
    text = text if text.startswith("[") else "[" + text
    text = text if text.endswith("]") else text + "]"
    try:
        body = ast.parse(text.strip().strip("'"), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        raise _Undecodable(f"not a Python list of calls: {error}") from None
    if isinstance(body, ast.Call):
        return [_call(body)]
    elements = getattr(body, "elts", None)
    if elements is None:
        raise _Undecodable("not a list of calls")
    if not all(isinstance(e, ast.Call) for e in elements):
        raise _Undecodable("an item of the list is not a call")
    return [_call(e) for e in elements]


def _call(node: ast.Call) -> Call:
    name, arguments = _named_call(node)
    return openai_name(name), arguments


def _named_call(node: ast.Call) -> tuple[str, dict[str, Any]]:
    parts = []
    func: ast.expr = node.func
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    arguments = {}
    for keyword in node.keywords:  # positional arguments are dropped, as BFCL's decoder drops them
        # ``**d`` is BFCL's argument named None: a parameter no function has, so the call errs (as its does)
        arguments[str(keyword.arg)] = _value(keyword.value)
    return ".".join(reversed(parts)), arguments


_ARITHMETIC: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}


def _value(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant):
        if node.value is Ellipsis:
            return "..."
        if node.value is not None and not isinstance(node.value, str | int | float | bool):
            raise _Undecodable(f"a {type(node.value).__name__} literal is not a JSON value")
        return node.value
    if isinstance(node, ast.UnaryOp):  # BFCL negates the operand whatever the operator
        operand = getattr(node.operand, "value", None)
        if not isinstance(operand, int | float) or not isinstance(node.operand, ast.Constant):
            raise _Undecodable(f"{ast.unparse(node)!r} cannot be decoded")
        return -operand
    if isinstance(node, ast.List | ast.Tuple):
        return [_value(v) for v in node.elts]
    if isinstance(node, ast.Dict):
        keys = [_value(k) if k is not None else None for k in node.keys]
        if not all(isinstance(k, str) for k in keys):
            raise _Undecodable("a dict key that is not text")
        return {k: _value(v) for k, v in zip(keys, node.values, strict=True)}
    if isinstance(node, ast.BinOp):
        return _arithmetic(node)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        if not node.keywords:
            return ast.unparse(node)
        name, arguments = _named_call(node)
        return {name: arguments}
    if isinstance(node, ast.Subscript):
        return f"{ast.unparse(node.value)}[{ast.unparse(node.slice)}]"
    raise _Undecodable(f"{type(node).__name__} {ast.unparse(node)[:60]!r} cannot be decoded")


def _arithmetic(node: ast.expr) -> int | float:
    """What BFCL's ``eval`` gives an arithmetic of number literals; anything else is not evaluated."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        number: int | float = node.value  # type: ignore[assignment]
        return number
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _arithmetic(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        try:
            result = _ARITHMETIC[type(node.op)](_arithmetic(node.left), _arithmetic(node.right))
        except (ArithmeticError, ValueError):
            raise _Undecodable(f"{ast.unparse(node)!r} cannot be evaluated") from None
        if isinstance(result, int | float):
            return result
    raise _Undecodable(f"{ast.unparse(node)[:60]!r}: squall evaluates only arithmetic on number literals")
