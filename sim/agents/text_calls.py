"""The values of one text-protocol step, and how call-shaped text becomes an Action.

Model output is untrusted: nothing here evaluates code. JSON goes through ``json``, Python literals
through ``ast.literal_eval`` and call syntax through ``ast.parse`` (mode ``eval``), reading only
literal nodes. Decoded values are made JSON-compatible (tuples become lists, dict keys strings).
``text_parse`` finds the candidate snippets in a reply; this module reads one snippet.
"""

from __future__ import annotations

import ast
import difflib
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from pydantic import Field

from sim.core.tools import Frozen

ParseErrorCode = Literal["empty", "no_action", "unknown_tool", "bad_arguments", "empty_answer"]

FENCE_RE = re.compile(r"```[\w+-]*")
_FENCED_RE = re.compile(r"\A\s*```[\w+-]*[ \t]*\n?(.*?)\s*(?:```\s*)?\Z", re.DOTALL)
CALL_START_RE = re.compile(r"(?<![\w.])(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)[ \t]*\(")
FINAL_NAMES = frozenset({"final answer", "final_answer", "finalanswer", "finish"})
EMPTY_ANSWER = "The Final Answer was empty."
NAME_KEYS = ("name", "tool_name", "tool", "function", "action", "api", "api_name")
"""Keys a call-shaped JSON object may name its tool under (``api``: the reference study's tag protocol)."""
_ARG_KEYS = ("arguments", "parameters", "args", "params", "input", "action_input", "tool_input", "kwargs")
CALLISH_OBJ_RE = re.compile(r"\{\s*[\"'](?:" + "|".join(NAME_KEYS) + r")[\"']\s*:")
"""A JSON object that opens with a tool-name key: a call attempt even when it is not valid JSON."""
_JSON_WORD_RE = re.compile(r"(\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*')|\b(true|false|null)\b")


class Action(Frozen):
    """A tool call the model asked for."""

    name: str = Field(description="Tool name, resolved to one of the offered tools.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Keyword arguments, JSON values.")
    thought: str | None = Field(default=None, description="The model's reasoning before the action, if any.")
    raw: str = Field(default="", description="The text the action was parsed from.")
    notes: tuple[str, ...] = Field(default=(), description="What else in the reply was ignored, and why.")
    end_of_turn_ignored: bool = Field(
        default=False, description="The reply also held <End of Turn>: ignored, the call runs (see tag_protocol)."
    )


class FinalAnswer(Frozen):
    """The model's reply to the user; ends its turn."""

    text: str = Field(description="The reply, labels removed.")
    thought: str | None = Field(default=None, description="The model's reasoning before the answer, if any.")
    notes: tuple[str, ...] = Field(default=(), description="What else in the reply was ignored, and why.")


class ParseError(Frozen):
    """Why a reply could not be used; fed back to the model."""

    code: ParseErrorCode = Field(description="Machine-readable reason.")
    message: str = Field(description="Human-readable reason, addressed to the model.")
    raw: str = Field(default="", description="The offending snippet, when there is one.")


Step = Action | FinalAnswer | ParseError


def from_payload(body: str, names: frozenset[str]) -> Step:
    """The body of a tool-call tag: a JSON object (or a list of them) or call syntax."""
    src = strip_fence(body)
    if src[:1] in ("{", "["):
        try:
            value, _ = decode_value(src, 0)
        except ValueError as exc:
            return bad_arguments(f"The tool call is not valid JSON ({exc}).", src)
        extra = len(value) - 1 if isinstance(value, list) else 0
        if isinstance(value, list):
            value = value[0] if value else None
        result = (from_object(value, names) if isinstance(value, dict) else None) or no_name(value)
        if extra > 0 and isinstance(result, Action):
            note = f"Only the first action in a reply is run; {extra} later action(s) were ignored."
            result = result.model_copy(update={"notes": (note,)})
        return result
    call = CALL_START_RE.match(src)
    end = balanced_end(src, call.end() - 1) if call else None
    if call is None or end is None:
        return ParseError(code="no_action", message="The tool call names no tool.", raw=src[:200])
    return from_call(src[:end], names)


def strip_fence(text: str) -> str:
    """The text without a Markdown code fence around it (fences inside it are content)."""
    m = _FENCED_RE.match(text)
    return (m.group(1) if m else text).strip()


def from_object(obj: dict[str, Any], names: frozenset[str]) -> Step | None:
    """A call-shaped JSON object, or None when the object is not a call attempt."""
    dropped = {"type", "id"}
    if isinstance(obj.get("function"), dict):  # OpenAI: {"type": "function", "function": {...}}
        obj = {**obj, **obj["function"]}
        dropped.add("function")
    name_keys = [k for k in NAME_KEYS if isinstance(obj.get(k), str)]
    if not name_keys:
        return None
    # {"api": "create_user", "name": "Alice"}: the key naming a known tool is the name; the rest may be arguments
    name_key = next((k for k in name_keys if lookup_tool(obj[k], names) is not None), name_keys[0])
    name: str = obj[name_key]
    args_key = next((k for k in _ARG_KEYS if k in obj), None)
    if name.strip().casefold() in FINAL_NAMES and name not in names:
        answer = obj.get(args_key) if args_key else None
        text = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False) if answer else ""
        return FinalAnswer(text=text.strip()) if text.strip() else ParseError(code="empty_answer", message=EMPTY_ANSWER)
    resolved = resolve_tool(name, names, hint=False)
    flat = {k: v for k, v in obj.items() if k not in {name_key, *dropped}}
    if args_key is None and flat and isinstance(resolved, ParseError):
        return None  # a record that happens to have a "name" field, e.g. {"name": "Alice", "age": 30}
    if isinstance(resolved, ParseError):
        return resolved
    # {"name": "get_weather", "city": "Paris"}: arguments flattened beside the name
    args = as_arguments(obj[args_key]) if args_key else flat
    if isinstance(args, ParseError):
        return args
    return Action(name=resolved, arguments=args)


def from_call(src: str, names: frozenset[str]) -> Step:
    """Call syntax ``name(k=v, ...)`` as an Action (see ``parse_call``)."""
    call = parse_call(src)
    if call is None:
        return bad_arguments("The call is not valid call syntax; write name(key=value, ...).", src)
    name = resolve_tool(call.name, names, hint=False)
    if isinstance(name, ParseError):
        return name
    if call.problem is not None:
        return bad_arguments(call.problem, src)
    return Action(name=name, arguments=call.arguments)


@dataclass(frozen=True)
class NameTable:
    """What matching a written name needs of a tool set, computed once per set (replies are parsed per step)."""

    names: frozenset[str]
    folded: dict[str, tuple[str, ...]]
    """Case-folded name -> the names that fold to it."""
    ordered: tuple[str, ...]
    """Sorted, for a deterministic fuzzy match."""


@lru_cache(maxsize=32)
def name_table(names: frozenset[str]) -> NameTable:
    folded: dict[str, list[str]] = {}
    for name in names:
        folded.setdefault(name.casefold(), []).append(name)
    return NameTable(names, {key: tuple(value) for key, value in folded.items()}, tuple(sorted(names)))


def _clean(raw: str) -> str:
    return re.sub(r"\(\s*\)$", "", raw.strip().strip("`'\"*").strip()).rstrip(".,:;").strip()[:200]


def lookup_tool(raw: str, names: frozenset[str], tokens: bool = False) -> str | None:
    """The tool a written name means, or None: exact, namespace-stripped, unique case-insensitive, or (tokens) a
    unique tool word. Cheap: dictionary lookups only, whatever the number of names."""
    name = _clean(raw)
    if not name:
        return None
    tail = re.split(r"[.:/]", name)[-1]
    for candidate in (name, tail):
        if candidate in names:
            return candidate
    table = name_table(names).folded
    folded = {*table.get(name.casefold(), ()), *table.get(tail.casefold(), ())}
    if len(folded) == 1:
        return folded.pop()
    if tokens:  # "Action: use the get_weather tool"
        hits = {t for t in re.findall(r"[A-Za-z_][\w.-]*", name) if t in names}
        if len(hits) == 1:
            return hits.pop()
    return None


def resolve_tool(raw: str, names: frozenset[str], tokens: bool = False, hint: bool = True) -> str | ParseError:
    """``lookup_tool``, or why not. ``hint``: name close matches in the error (a fuzzy match over every name: the
    parser asks for it once, for the error it returns, not for every candidate it weighs)."""
    found = lookup_tool(raw, names, tokens)
    if found is not None:
        return found
    if not _clean(raw):
        return ParseError(code="no_action", message="The Action names no tool.")
    error = ParseError(code="unknown_tool", message=f"Unknown tool {_clean(raw)[:80]!r}.", raw=raw[:200])
    return with_hint(error, names) if hint else error


def with_hint(error: ParseError, names: frozenset[str]) -> ParseError:
    """An unknown-tool error with the close matches of the name it reports (other steps unchanged)."""
    if error.code != "unknown_tool" or error.message.endswith("?"):
        return error
    close = difflib.get_close_matches(_clean(error.raw), name_table(names).ordered, n=3, cutoff=0.6)
    if not close:
        return error
    hint = f" Did you mean {' or '.join(repr(c) for c in close)}?"
    return error.model_copy(update={"message": error.message + hint})


def as_arguments(value: Any) -> dict[str, Any] | ParseError:
    """Arguments as written: an object, null (none), or a string holding an object (decoded once)."""
    if isinstance(value, str):  # arguments as a JSON string: decode once
        stripped = value.strip()
        if not stripped:
            return {}
        try:
            value, _ = decode_value(stripped, 0)
        except ValueError:
            return bad_arguments("The arguments must be a JSON object, not a string.", stripped)
    if value is None:
        return {}
    if not isinstance(value, dict):
        return bad_arguments(f"The arguments must be a JSON object, not {type(value).__name__}.", str(value))
    return value


def bad_arguments(message: str, raw: str = "") -> ParseError:
    return ParseError(code="bad_arguments", message=message, raw=raw[:200])


def no_name(value: Any = None) -> ParseError:
    """A call attempt without a usable tool name, saying what is missing and which keys were found."""
    form = 'Write {"api": "<tool name>", "params": {...}} (or "name" with "arguments").'
    if not isinstance(value, dict):
        kind = "nothing" if value is None else type(value).__name__
        return ParseError(code="no_action", message=f"The tool call must be a JSON object, not {kind}. {form}")
    keys = ", ".join(json.dumps(k) for k in list(value)[:8]) or "none"
    named = next((k for k in NAME_KEYS if k in value), None)
    if named is not None:
        what = f'the tool name under "{named}" must be a string'
    elif any(k in value for k in _ARG_KEYS):
        what = 'it has arguments but no tool name ("api" or "name")'
    else:
        what = 'it has neither a tool name ("api" or "name") nor arguments ("params" or "arguments")'
    return ParseError(code="no_action", message=f"The tool call cannot be used: {what}; its keys: {keys}. {form}")


@dataclass(frozen=True)
class CallSyntax:
    """A parsed ``name(...)`` call; ``problem`` says why its arguments are unusable, if they are."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None


def decode_value(text: str, pos: int) -> tuple[Any, int]:
    """One JSON value (or Python literal) starting at ``pos``, and the index after it. Raises ValueError."""
    try:
        try:
            value, end = json.JSONDecoder().raw_decode(text, pos)
            return jsonable(value), end
        except json.JSONDecodeError as exc:
            reason = exc.msg
        close = balanced_end(text, pos)
        if close is None:
            raise ValueError(f"{reason}; unbalanced brackets or quotes")
        return jsonable(literal(text[pos:close])), close
    except RecursionError:
        raise ValueError("nested too deeply") from None


def literal(src: str) -> Any:
    """A Python literal, also when written with JSON's true/false/null. Raises ValueError."""
    for candidate in (src, pythonise(src)):
        try:
            return ast.literal_eval(candidate)
        except Exception:  # literal_eval raises several types; all mean "not a literal"
            continue
    raise ValueError("not valid JSON or a Python literal")


def parse_call(src: str) -> CallSyntax | None:
    """``name(k=v, ...)`` or ``name({...})`` with literal values; None when ``src`` is no call at all."""
    try:
        node = ast.parse(pythonise(src).strip(), mode="eval").body
    except Exception:  # SyntaxError, and MemoryError/RecursionError on deep nesting
        return None
    name = _dotted(node.func) if isinstance(node, ast.Call) else None
    if name is None or not isinstance(node, ast.Call):
        return None
    if len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Dict):
        value = _literal_node(node.args[0])  # name({"k": v}): the arguments as one dict
        if isinstance(value, dict):
            return CallSyntax(name, value)
        return CallSyntax(name, problem=f"The arguments of {name} are not literal values.")
    if node.args or any(kw.arg is None for kw in node.keywords):
        return CallSyntax(name, problem=f"Name every argument of {name}, e.g. {name}(key=value).")
    args: dict[str, Any] = {}
    for kw in node.keywords:
        value = _literal_node(kw.value)
        if value is _NOT_LITERAL:
            return CallSyntax(name, problem=f"Argument {kw.arg!r} of {name} is not a literal value.")
        args[str(kw.arg)] = value
    return CallSyntax(name, args)


def jsonable(value: Any) -> Any:
    """The value with tuples as lists and dict keys as strings. Raises ValueError for non-JSON types (sets...)."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    raise ValueError(f"{type(value).__name__} is not a JSON value")


def pythonise(src: str) -> str:
    """JSON's true/false/null as Python's True/False/None, leaving string contents alone."""
    words = {"true": "True", "false": "False", "null": "None"}
    return _JSON_WORD_RE.sub(lambda m: m.group(1) or words[m.group(2)], src)


def balanced_end(text: str, pos: int) -> int | None:
    """Index after the bracket or quoted string opening at ``pos``, honouring nesting and quotes."""
    closers = {"{": "}", "[": "]", "(": ")"}
    stack: list[str] = []
    quote: str | None = None
    i = pos
    while i < len(text):
        ch = text[i]
        if quote is not None:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
                if not stack:
                    return i + 1
        elif ch in "\"'":
            quote = ch
        elif ch in closers:
            stack.append(closers[ch])
        elif ch in ")]}":
            if not stack or stack.pop() != ch:
                return None
            if not stack:
                return i + 1
        i += 1
    return None


_NOT_LITERAL = object()


def _literal_node(node: ast.expr) -> Any:
    try:
        return jsonable(ast.literal_eval(node))
    except Exception:
        return _NOT_LITERAL


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None
