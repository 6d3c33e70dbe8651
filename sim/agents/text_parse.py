"""Parse one step of a text-protocol (ReAct-style) reply into an action, a final answer or a parse error.

The parser is tolerant on purpose: small models write the format sloppily, and a step we cannot use
should become feedback for the model (and a scored agent fault), never a crash. It never raises.

Accepted action forms, anywhere in the reply:

- ReAct labels: ``Action: name`` then ``Action Input: {...}`` (labels in any case, optionally bold,
  input on the same or following lines, trailing text ignored); ``Action: name({...})`` or
  ``Action: name(k=v)`` on one line; ``Action: Final Answer`` with the answer as input (LangChain).
- Tags: ``<tool_call>{"name": ..., "arguments"|"parameters": {...}}</tool_call>`` (Hermes, Qwen;
  a missing closing tag is tolerated), ``<function_call>``, ``<function=name>{...}</function>``
  (Llama 3.1) and ``<API_CALL>`` holding ``name(k=v)`` or JSON (``{"api": ..., "params": {...}}``, the
  reference study's tag protocol; every tag takes every name and arguments key, see ``tag_protocol``).
  A missing Action Input means no arguments.
- A bare JSON object naming a tool (``{"name": ..., "arguments": ...}``, also inside a fenced block,
  OpenAI ``{"function": {...}}`` and LangChain ``{"action": ..., "action_input": ...}`` shapes).
- Call syntax ``name(k="x", n=3)`` on a line of its own (optionally in backticks, brackets or a
  fenced block). A known tool's call syntax inside prose is only a *mention*: it is never run, but
  without any other action it yields a ``no_action`` error so the model is told how to call.

Arguments may be a JSON object, a Python literal (``ast.literal_eval``, never ``eval``), JSON with
Python's True/None or Python with JSON's true/null, a string holding JSON (decoded once), or
``k=v, ...`` keyword syntax. Tool names are matched exactly, then without a namespace prefix
(``functions.x``), then case-insensitively when unique; otherwise ``unknown_tool`` with close matches.

One thing per step: when a reply holds several actions, or an action and a Final Answer, the first
in the text wins and the rest are described in ``notes``. ``<End of Turn>`` is not a candidate: a call
anywhere in the reply wins over it and the action is flagged ``end_of_turn_ignored`` (the mixed-reply
rule, in ``tag_protocol``); without a call, the text before it is the final answer.

A reply with no labels and no call attempt is a final answer. A call attempt is a ReAct label
(Action, Action Input, Thought, Observation), a tool-call tag, a JSON object with a tool-name key
("name", "tool", "function", "action", "api"...) that has an arguments key or no other keys, or a call of a
known tool. When a reply holds such an attempt but no usable action, the result is a ParseError so
the model gets feedback rather than its broken call being shown to the user as the answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from sim.agents.tag_protocol import END_OF_TURN_RE, apply_end_of_turn
from sim.agents.text_calls import (
    CALL_START_RE,
    CALLISH_OBJ_RE,
    EMPTY_ANSWER,
    FENCE_RE,
    FINAL_NAMES,
    Action,
    FinalAnswer,
    ParseError,
    ParseErrorCode,
    Step,
    as_arguments,
    bad_arguments,
    balanced_end,
    decode_value,
    from_call,
    from_object,
    from_payload,
    lookup_tool,
    no_name,
    parse_call,
    resolve_tool,
    strip_fence,
    with_hint,
)

__all__ = ["Action", "FinalAnswer", "ParseError", "ParseErrorCode", "Step", "parse_step"]

_LABEL_RE = re.compile(
    r"(?<!\w)\*{0,2}(?P<word>final[ \t_-]*answer|action[ \t_-]*input|action|thought|observation)"
    r"\*{0,2}[ \t]*:[ \t]*\*{0,2}",
    re.IGNORECASE,
)
_TAG_RE = re.compile(
    r"<(?:tool_call|function_call|api_call)>(?P<body>.*?)"
    r"(?:</(?:tool_call|function_call|api_call)>|(?=<(?:tool_call|function_call|api_call)>)|\Z)",
    re.IGNORECASE | re.DOTALL,
)
_FUNC_TAG_RE = re.compile(r"<function=(?P<name>[^>\s]+)>(?P<body>.*?)(?:</function>|\Z)", re.DOTALL)
_THINK_OPEN, _THINK_CLOSE = "<think>", "</think>"
_OBJ_START_RE = re.compile(r"\{\s*[\"']")
_CALL_BEFORE_RE = re.compile(r"(?:\A[\s`>*\-\[]*|\)\s*,\s*)\Z")
_CALL_AFTER_RE = re.compile(r"\A[\s`\];]*(?:,.*)?\Z")
_EMPTY_INPUTS = frozenset({"", "none", "null", "n/a", "{}", "no input", "(none)", "nothing"})
_MAX_SCANS = 64  # bounds the work on long or adversarial replies


@dataclass(frozen=True)
class _Candidate:
    start: int
    end: int
    result: Step
    strong: bool = True  # False: a known tool's call syntax mentioned in prose


@dataclass(frozen=True)
class _Label:
    kind: str  # finalanswer | actioninput | action | thought | observation
    start: int
    end: int  # where the label's value starts


def parse_step(text: str, tool_names: Collection[str]) -> Step:
    """Parse one model reply. See the module docstring for what is accepted."""
    names = frozenset(tool_names)
    # Candidates are weighed with exact lookups only; the fuzzy "Did you mean" runs once, for the error returned.
    return with_hint(step, names) if isinstance(step := _parse(text, names), ParseError) else step


def _parse(text: str, names: frozenset[str]) -> Step:
    body, reasoning = _strip_think(text)
    if not body.strip():
        return ParseError(code="empty", message="The reply was empty.")
    claimed: list[tuple[int, int]] = []
    found = _tag_candidates(body, names, claimed)
    found += _label_candidates(body, names, claimed)
    found += _object_candidates(body, names, claimed)
    found += _call_candidates(body, names, claimed)
    strong = sorted((c for c in found if c.strong), key=lambda c: c.start)
    if strong:
        return apply_end_of_turn(_finish(strong[0], strong[1:], body, reasoning), body)
    if END_OF_TURN_RE.search(body):  # the model ended its turn: a call mentioned in prose is no attempt
        return apply_end_of_turn(FinalAnswer(text=_LABEL_RE.sub("", body).strip(), thought=reasoning), body)
    weak = sorted(found, key=lambda c: c.start)
    if weak:
        snippet = body[weak[0].start : weak[0].end]
        return ParseError(
            code="no_action",
            message=f"The reply mentions {snippet[:120]!r} inside other text. To call a tool, use the format shown.",
            raw=snippet[:200],
        )
    if _labels(body):
        return ParseError(code="no_action", message="The reply has neither an Action nor a Final Answer.")
    return FinalAnswer(text=body.strip(), thought=reasoning)


def _finish(win: _Candidate, rest: list[_Candidate], body: str, reasoning: str | None) -> Step:
    result = win.result
    if isinstance(result, ParseError):
        return result
    preface = _LABEL_RE.sub("", body[: win.start]) if win.start else ""
    thought = FENCE_RE.sub("", preface).strip(" \t\n`[>*-") or reasoning
    notes: list[str] = []
    actions = sum(not isinstance(c.result, FinalAnswer) for c in rest)
    if isinstance(result, Action):
        if actions:
            notes.append(f"Only the first action in a reply is run; {actions} later action(s) were ignored.")
        if len(rest) > actions:
            notes.append("A Final Answer in the same reply as an action was ignored; wait for the Observation.")
        raw = result.raw or body[win.start : win.end]
        return result.model_copy(update={"thought": thought, "raw": raw, "notes": (*result.notes, *notes)})
    if actions:
        notes.append(f"{actions} action(s) after the Final Answer were ignored.")
    return result.model_copy(update={"thought": thought, "notes": tuple(notes)})


def _strip_think(text: str) -> tuple[str, str | None]:
    """Split off a leading reasoning block (<think>...</think>, as reasoning models write it).

    An unclosed <think> means the model ran out of tokens while thinking. A close tag without an open
    one (templates that prefill <think>) ends a reasoning prefix, but only when that prefix holds no
    JSON or tags: a "</think>" inside an argument is content.
    """
    stripped = text.lstrip()
    if stripped.startswith(_THINK_OPEN):
        close = stripped.find(_THINK_CLOSE)
        end = len(stripped) if close < 0 else close
        rest = "" if close < 0 else stripped[close + len(_THINK_CLOSE) :]
        return rest, stripped[len(_THINK_OPEN) : end].strip() or None
    close = text.find(_THINK_CLOSE)
    if close >= 0 and not set(text[:close]) & set("{<"):
        return text[close + len(_THINK_CLOSE) :], text[:close].strip() or None
    return text, None


def _inside(pos: int, claimed: list[tuple[int, int]]) -> bool:
    return any(start <= pos < end for start, end in claimed)


def _labels(text: str) -> list[_Label]:
    """ReAct labels: any case at the start of a line; mid-line only when capitalised ('... Action: x')."""
    out = []
    for m in _LABEL_RE.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        at_line_start = not text[line_start : m.start()].strip(" \t>*#-")
        if at_line_start or m.group("word")[0].isupper():
            kind = re.sub(r"[ \t_-]", "", m.group("word").lower())
            out.append(_Label(kind, m.start(), m.end()))
    return out


def _tag_candidates(text: str, names: frozenset[str], claimed: list[tuple[int, int]]) -> list[_Candidate]:
    out = []
    for m in _TAG_RE.finditer(text):
        out.append(_Candidate(m.start(), m.end(), from_payload(m.group("body"), names)))
    for m in _FUNC_TAG_RE.finditer(text):
        if not _inside(m.start(), [(c.start, c.end) for c in out]):
            args = strip_fence(m.group("body"))  # a JSON string: from_object decodes it
            obj = {"name": m.group("name"), "arguments": args}
            out.append(_Candidate(m.start(), m.end(), from_object(obj, names) or no_name(obj)))
    claimed.extend((c.start, c.end) for c in out)
    return out


def _label_candidates(text: str, names: frozenset[str], claimed: list[tuple[int, int]]) -> list[_Candidate]:
    labels = [lab for lab in _labels(text) if not _inside(lab.start, claimed)]
    out: list[_Candidate] = []
    until = 0
    for i, lab in enumerate(labels):
        if lab.start < until or lab.kind not in ("action", "finalanswer"):
            continue
        later = labels[i + 1 :]
        result: Step
        if lab.kind == "finalanswer":
            end = next((x.start for x in later if x.kind in ("action", "thought", "observation")), len(text))
            answer = text[lab.end : end].strip()
            result = FinalAnswer(text=answer) if answer else ParseError(code="empty_answer", message=EMPTY_ANSWER)
        else:
            bound = next((x.start for x in later if x.kind != "actioninput"), len(text))
            inp = next((x for x in later if x.kind == "actioninput" and x.start < bound), None)
            result, end = _react_action(text, lab, inp, names)
        out.append(_Candidate(lab.start, end, result))
        claimed.append((lab.start, end))
        until = end
    return out


def _react_action(text: str, lab: _Label, inp: _Label | None, names: frozenset[str]) -> tuple[Step, int]:
    line_end = _line_end(text, lab.end)
    if inp is not None and inp.start < line_end:
        line_end = inp.start
    head_start = lab.end
    if not text[lab.end : line_end].strip() and line_end < len(text):  # name on the next line
        nxt_end = _line_end(text, line_end + 1)
        if not _LABEL_RE.match(text, line_end + 1) and (inp is None or inp.start >= nxt_end):
            head_start, line_end = line_end + 1, nxt_end
    head = text[head_start:line_end]
    pos = head_start + len(head) - len(head.lstrip(" \t`*"))
    if text.startswith("{", pos):  # Action: {"name": ..., "arguments": ...}
        try:
            obj, end = decode_value(text, pos)
        except ValueError as exc:
            return bad_arguments(f"The Action is not valid JSON ({exc}).", text[pos:line_end]), line_end
        return (from_object(obj, names) if isinstance(obj, dict) else None) or no_name(obj), end
    call = CALL_START_RE.match(text, pos)
    if call and inp is None:  # Action: name(k=v) or name({...})
        close = balanced_end(text, call.end() - 1)
        if close is None:
            return bad_arguments("Unbalanced parentheses in the Action.", text[pos:line_end]), line_end
        return from_call(text[pos:close], names), close
    brace = head.find("{")
    name_text = head[:brace] if inp is None and brace > 0 else head
    end = line_end
    args: dict[str, Any] | ParseError = {}
    if inp is not None:
        args, end = _parse_input(text, inp.end)
    elif brace > 0:
        args, end = _parse_input(text, head_start + brace)
    if name_text.strip(" \t*`'\".:").casefold() in FINAL_NAMES and name_text.strip() not in names:
        answer = text[inp.end : _next_label(text, inp.end)].strip() if inp else ""
        answer = _unquote(answer)
        return (FinalAnswer(text=answer) if answer else ParseError(code="empty_answer", message=EMPTY_ANSWER)), end
    name = resolve_tool(name_text, names, tokens=True, hint=False)
    if isinstance(name, ParseError):
        return name, end
    if isinstance(args, ParseError):
        return args, end
    return Action(name=name, arguments=args), end


def _parse_input(text: str, pos: int) -> tuple[dict[str, Any] | ParseError, int]:
    """Arguments after 'Action Input:': JSON, a Python literal, a quoted JSON string or k=v pairs."""
    i = _skip_space(text, pos)
    if text.startswith("```", i):
        fence = FENCE_RE.match(text, i)
        i = _skip_space(text, fence.end() if fence else i + 3)
    while text.startswith("`", i):  # inline code: `{"k": 1}`
        i += 1
    line_end = _line_end(text, i)
    if i >= len(text) or _LABEL_RE.match(text, i):
        return {}, i
    if text[i] in "{[\"'":
        try:
            value, end = decode_value(text, i)
        except ValueError as exc:
            return bad_arguments(f"Action Input is not valid JSON ({exc}).", text[i:line_end]), line_end
        return as_arguments(value), end
    line = text[i:line_end].strip()
    if line.lower().rstrip(".") in _EMPTY_INPUTS:
        return {}, line_end
    kwargs = parse_call(f"_({line})")
    if kwargs is not None and kwargs.problem is None:
        return kwargs.arguments, line_end
    return bad_arguments(f"Action Input must be a JSON object, got {line[:80]!r}.", line), line_end


def _object_candidates(text: str, names: frozenset[str], claimed: list[tuple[int, int]]) -> list[_Candidate]:
    out: list[_Candidate] = []
    scans = 0
    for m in _OBJ_START_RE.finditer(text):
        pos = m.start()
        if _inside(pos, claimed):
            continue
        scans += 1
        if scans > _MAX_SCANS:
            break
        try:
            obj, end = decode_value(text, pos)
        except ValueError as exc:
            if CALLISH_OBJ_RE.match(text, pos):
                end = balanced_end(text, pos) or _line_end(text, pos)
                problem = bad_arguments(f"The tool call is not valid JSON ({exc}).", text[pos:end])
                out.append(_Candidate(pos, end, problem))
                claimed.append((pos, end))
            continue
        result = from_object(obj, names) if isinstance(obj, dict) else None
        if result is not None:
            out.append(_Candidate(pos, end, result))
            claimed.append((pos, end))
    return out


def _call_candidates(text: str, names: frozenset[str], claimed: list[tuple[int, int]]) -> list[_Candidate]:
    out: list[_Candidate] = []
    scans = 0
    for m in CALL_START_RE.finditer(text):
        start = m.start()
        if _inside(start, claimed):
            continue
        line_start = text.rfind("\n", 0, start) + 1
        known = lookup_tool(m.group("name"), names) is not None
        own_line = bool(_CALL_BEFORE_RE.search(text[line_start:start]))
        if not (known or own_line):
            continue
        scans += 1
        if scans > _MAX_SCANS:
            break
        close = balanced_end(text, m.end() - 1)
        if close is None:
            if known:
                end = _line_end(text, start)
                problem = bad_arguments("Unbalanced parentheses in the call.", text[start:end])
                out.append(_Candidate(start, end, problem, own_line))
            continue
        end = close
        own_line = own_line and bool(_CALL_AFTER_RE.match(text[end : _line_end(text, end)]))
        if not known and not (own_line and (c := parse_call(text[start:end])) is not None and c.problem is None):
            continue  # ordinary code or prose (print(x)), not an attempt to call a tool
        result = from_call(text[start:end], names)
        out.append(_Candidate(start, end, result, own_line))
        claimed.append((start, end))
    return out


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            value = json.loads(text)
        except ValueError:
            return text
        return value if isinstance(value, str) else text
    return text


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


def _next_label(text: str, pos: int) -> int:
    m = _LABEL_RE.search(text, pos)
    return m.start() if m else len(text)
