"""BFCL's ground-truth call strings (``cd(folder='document')``, ``sort('final_report.pdf')``) as squall calls.

Parsed with ``ast`` and ``ast.literal_eval`` — never ``eval`` — so a string can only ever be one call with literal
arguments. Positional arguments take their names from the signature of the function that will run them (the
multi-turn backend's method), as Python would bind them.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from worlds.bfcl.gorilla_types import openai_name

Signature = Callable[[str], inspect.Signature | None]
"""Function name -> the signature positional arguments bind to (None: the function is unknown)."""


class GoldParseError(ValueError):
    """A ground-truth string that is not one call with literal arguments."""


@dataclass(frozen=True)
class ParsedCall:
    """One parsed call: the name as BFCL wrote it, the rewritten name squall's tools carry, and named arguments."""

    source_name: str
    name: str
    arguments: Mapping[str, Any]


def parse_call(text: str, signature: Signature | None = None) -> ParsedCall:
    """One ground-truth call. ``signature``: where positional arguments get their names (required when the call
    has any). Raises GoldParseError naming the call."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as error:
        raise GoldParseError(f"{text!r}: not a Python call: {error.msg}") from None
    if not isinstance(node, ast.Call):
        raise GoldParseError(f"{text!r}: not a call")
    name = _dotted(node.func)
    if name is None:
        raise GoldParseError(f"{text!r}: the called function is not a plain name")
    arguments: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            raise GoldParseError(f"{text!r}: **kwargs are not supported")
        arguments[keyword.arg] = _literal(keyword.value, text)
    if node.args:
        arguments = _bind(name, [_literal(arg, text) for arg in node.args], arguments, signature, text)
    return ParsedCall(source_name=name, name=openai_name(name), arguments=arguments)


def _bind(
    name: str, positional: list[Any], keywords: dict[str, Any], signature: Signature | None, text: str
) -> dict[str, Any]:
    found = signature(name) if signature is not None else None
    if found is None:
        raise GoldParseError(f"{text!r}: positional arguments, and no signature of '{name}' to name them")
    try:
        bound = found.bind_partial(*positional, **keywords)
    except TypeError as error:
        raise GoldParseError(f"{text!r}: arguments do not fit {name}{found}: {error}") from None
    return dict(bound.arguments)


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def _literal(node: ast.expr, text: str) -> Any:
    try:
        return _json_shaped(ast.literal_eval(node))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise GoldParseError(f"{text!r}: argument {ast.unparse(node)[:80]!r} is not a literal") from None


def _json_shaped(value: Any) -> Any:
    """Tuples as lists: the form a value has once it crossed JSON, as an agent's arguments always have."""
    if isinstance(value, tuple | list):
        return [_json_shaped(v) for v in value]
    if isinstance(value, dict):
        return {k: _json_shaped(v) for k, v in value.items()}
    return value
