"""Completion: for each goal with an exact answer (``Goal.answer``), does the agent's final reply of the goal give it?

The answer is normalised into rows of atoms (``judges.answers.answer_normalise``). A reply matches in one of two ways:

- structured: the whole reply, or a fenced ```json (or unlabelled) block holding a list or object, parses as JSON;
  then it matches only when its rows equal the answer's (order-insensitive, numbers within rounding);
- free text, otherwise: recall and precision over what the reply states.
  - recall: every distinct answer value is stated — a string as a whole phrase (not inside a longer word), a
    number as a number in the text (``3``, ``3.0``, ``1,234``, a number word, ``45.67`` for 45.666…; "no"/"none"
    state 0), a null as "null"/"none"/"n/a", a boolean as yes/true or no/false;
  - precision, on the kinds of value the answer has (the reply may say more, but not more answer-like items):
    - numbers, when the answer has one: every number the reply states is an answer number — except numbers the
      user said (the question's "older than 30"), the count of answer rows ("the two singers"), numbers inside
      answer strings, list markers, and the word "one" (a pronoun as often as a count);
    - values the agent saw: a string from the agent's tool results (this goal and earlier) that sits in the same
      field as an answer value (same key path, list positions ignored: the rest of the column the answer came
      from) and is not an answer value, must not be named — a reply listing every row of a table fails a one-row
      answer. Values the user said, and parts of answer values, are exempt; a number seen so is extra too;
    - list items: a table row, or a short bullet or numbered item (at most ``SHORT_ITEM`` words, not a heading),
      that states no answer value is an extra item.
  - an empty answer (no rows, or one row of nulls: an aggregate over nothing) matches a reply that states that
    nothing matches ("no", "none", "nothing", "zero", "there aren't any"; for a row of nulls "null" too) and states
    no number but 0 or the user's (``judges.answers.answer_empty``).
- a refusal ("I'm sorry, I can't help with that.", "I am unable to answer that") is never right, whatever else the
  reply says: it states nothing about the data, and the null agent, which always declines, must score 0.
What is not caught: an extra string value the agent never saw in a tool result and wrote outside a list ("John
Doe and Jane Smith" with no query that returned Jane), a date in another format than the answer's, percentages
for fractions (25% vs 0.25), units. Deterministic throughout: no model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from typing import Any

from judges.answers.answer_empty import NO, gives_empty, is_empty, refuses
from judges.answers.answer_normalise import (
    Atom,
    atom,
    fold,
    number_matches,
    numbers_in,
    rows,
    structured_matches,
)
from judges.common.trace_view import failed, played, score_for, unscoreable
from judges.names import JudgeName
from sim.core import EpisodeResult, Score

SHORT_ITEM = 4
"""Bullet items of at most this many words read as answer items ("Jane Smith (52)"); longer ones as prose."""
_TEXT_FENCES = frozenset({"", "json", "text", "txt", "plaintext", "csv", "md", "markdown"})
_FENCE = re.compile(r"```([\w+-]*)[^\n]*\n(.*?)```", re.DOTALL)
_BULLET = re.compile(r"^\s*(?:[-*•+]|\(?\d{1,3}[.)])\s+(.*)$")
_TABLE_RULE = re.compile(r"^\s*\|?[\s:|-]*-[\s:|-]*$")
_NULL_CUE = re.compile(r"\b(?:null|none|n/a|unknown)\b")
_TRUE_CUE = re.compile(r"\b(?:yes|true)\b")
_FALSE_CUE = re.compile(rf"\bfalse\b|{NO}")
_ZERO_CUE = re.compile(rf"\bnone\b|{NO}")
_NOT_JSON = object()


@dataclass(frozen=True)
class ReplyContext:
    """What the agent had in view: the user's words so far, and the results its calls returned."""

    said: str = ""  # folded
    results: tuple[Any, ...] = ()
    leaves: frozenset[tuple[tuple[str, ...], Atom]] | None = None  # of ``results``, when already read (see ``leaves``)

    def result_leaves(self) -> frozenset[tuple[tuple[str, ...], Atom]]:
        return self.leaves if self.leaves is not None else frozenset(leaves(self.results))


@dataclass
class AnswerVerdict:
    correct: bool
    errors: list[str] = field(default_factory=list)


@lru_cache(maxsize=4096)  # a task's answer values come back for every reply judged against them
def _phrase(phrase: str) -> re.Pattern[str]:
    """A folded phrase as a pattern: whole (no word character glued to either end), its spaces any whitespace, so
    a value stored over two lines ("12 Main St\nApt 4", folded "12 main st apt 4") is found as the reply writes it."""
    start = r"(?<!\w)(?<!\d[.,])" if re.match(r"\w", phrase) else ""  # "2" is not stated by "1.2" or "2.5"
    end = r"(?!\w|[.,]\d)" if re.search(r"\w\Z", phrase) else ""
    return re.compile(start + r"\s+".join(map(re.escape, phrase.split(" "))) + end)


def occurs(phrase: str, text: str) -> bool:
    """A folded phrase in a folded text (lines folded one by one) as a whole phrase."""
    if not phrase or (phrase not in text and not (" " in phrase and "\n" in text)):
        return False  # the fast path: a substring test rules most phrases out
    return _phrase(phrase).search(text) is not None


def structured(reply: str) -> Any:
    """The JSON list or object a reply gives as its answer, else ``_NOT_JSON``. A bare scalar ("3", "null") is read
    as text: the text rules compare it with the answer's values (a string 'null' in a table is not JSON null)."""
    try:
        value = json.loads(reply)
        if isinstance(value, list | dict):
            return value
    except ValueError:
        pass
    for lang, body in reversed(_FENCE.findall(reply)):
        if lang.lower() in ("", "json"):
            try:
                value = json.loads(body)
            except ValueError:
                continue
            if isinstance(value, list | dict):
                return value
    return _NOT_JSON


def _prose(reply: str) -> str:
    """The reply without code blocks in a programming language (the SQL it ran is not its answer)."""
    return _FENCE.sub(lambda m: m.group(0) if m.group(1).lower() in _TEXT_FENCES else "\n", reply)


def _stated(a: Atom, text: str, numbers: list[tuple[Decimal, int]]) -> bool:
    if a is None:
        return bool(_NULL_CUE.search(text))
    if isinstance(a, bool):
        return bool((_TRUE_CUE if a else _FALSE_CUE).search(text))
    if isinstance(a, Decimal):
        return any(number_matches(n, a, p) for n, p in numbers) or (a == 0 and bool(_ZERO_CUE.search(text)))
    return occurs(a, text)


def _without(text: str, phrases: set[str]) -> str:
    """The text with the phrases cut out (longest first): numbers inside answer strings are not stated numbers."""
    for phrase in sorted(phrases, key=len, reverse=True):
        text = _phrase(phrase).sub(" | ", text)
    return text


def _one_line_values(text: str, strings: set[str]) -> str:
    """The text with each answer value it gives over several lines put on one (an address stored over two lines):
    its lines are the value's, not list items of the reply."""
    if "\n" not in text:
        return text
    for phrase in sorted((p for p in strings if " " in p), key=len, reverse=True):
        text = _phrase(phrase).sub(phrase.replace("\\", "\\\\"), text)  # a template: its backslashes escaped
    return text


def _leaves(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Atom]]:
    """(key path with list positions as '*', atom) of each scalar in a JSON value."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, (*path, str(k)))
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _leaves(v, (*path, "*"))
    else:
        yield path, atom(value)


def leaves(results: tuple[Any, ...]) -> Iterator[tuple[tuple[str, ...], Atom]]:
    for content in results:
        yield from _leaves(content)


def distractors(seen: frozenset[tuple[tuple[str, ...], Atom]], atoms: set[Atom], said: str) -> set[Atom]:
    """Values the agent saw in the same fields as answer values that are not answer values (see module doc)."""
    fields = {path for path, a in seen if a in atoms}
    strings = {a for a in atoms if isinstance(a, str)}
    found: set[Atom] = set()
    for path, a in seen:
        if path not in fields or a in atoms:
            continue
        if isinstance(a, Decimal) or (
            isinstance(a, str) and len(a) >= 2 and not any(a in g for g in strings) and not occurs(a, said)
        ):
            found.add(a)
    return found


def _list_items(text: str) -> Iterator[str]:
    """Answer-like list items: table body rows, and short bullet or numbered items that are not headings."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("|") and "|" in stripped[1:]:  # "| a |": one pipe may be a value's line break
            header = i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1]) is not None
            if not header and not _TABLE_RULE.match(stripped):
                yield stripped
        elif (m := _BULLET.match(line)) is not None:
            item = m.group(1).strip()
            if len(item.split()) <= SHORT_ITEM and not item.rstrip("*_ ").endswith(":"):
                yield item


def _strip_markers(text: str) -> str:
    return "\n".join(m.group(1) if (m := _BULLET.match(line)) else line for line in text.splitlines())


def match_reply(answer: Any, reply: str, context: ReplyContext | None = None) -> AnswerVerdict:
    """Whether ``reply`` gives ``answer`` (see the module doc for the rules)."""
    context = context or ReplyContext()
    if not reply.strip():
        return AnswerVerdict(False, ["answer:no_reply"])
    parsed = structured(reply.strip())
    if parsed is not _NOT_JSON:
        ok = structured_matches(parsed, answer)
        return AnswerVerdict(ok, [] if ok else ["answer:structured_mismatch"])
    gold = rows(answer)
    text = "\n".join(fold(line) for line in _prose(reply).splitlines())
    if refuses(text):
        return AnswerVerdict(False, ["answer:refusal"])
    atoms = {a for row in gold for a in row if a != ""}
    strings = {a for a in atoms if isinstance(a, str)}
    text = _one_line_values(text, strings)
    gold_numbers = [a for a in atoms if isinstance(a, Decimal)]
    bare = _strip_markers(_without(text, strings))
    stated = numbers_in(bare)
    permitted = {n for n, _ in numbers_in(context.said)}
    if len(gold) >= 2 or not gold_numbers:
        permitted.add(Decimal(len(gold)))
    extra_numbers = [
        n
        for n, places in numbers_in(bare, with_one=False)
        if n not in permitted and not any(number_matches(n, g, places) for g in gold_numbers)
    ]
    if is_empty(answer):
        errors = [] if gives_empty(text, answer) else ["answer:missing"]
        errors += ["answer:extra_number"] if any(n != 0 for n in extra_numbers) else []
        return AnswerVerdict(not errors, errors)
    errors = [f"answer:missing:{_show(a)}" for a in sorted(atoms, key=_show) if not _stated(a, text, stated)]
    if gold_numbers and extra_numbers:
        errors.append("answer:extra_number")
    seen = distractors(context.result_leaves(), atoms, context.said)
    seen_numbers = [d for d in seen if isinstance(d, Decimal)]
    if any(occurs(d, text) for d in seen if isinstance(d, str)) or any(
        any(number_matches(n, d) for d in seen_numbers) for n in extra_numbers
    ):
        errors.append("answer:extra_value")
    if any(not any(_stated(a, fold(item), numbers_in(item)) for a in atoms) for item in _list_items(text)):
        errors.append("answer:extra_item")
    return AnswerVerdict(not errors, errors)


def _show(a: Atom) -> str:
    return json.dumps(a if not isinstance(a, Decimal) else str(a))[:60]


def turn_contexts(result: EpisodeResult) -> dict[int, tuple[str | None, ReplyContext]]:
    """Per played goal: the agent's final reply (None: it gave none), and what it had in view by then.

    One pass over the events; each result is read into leaves once (replayed gold results count: the agent saw
    them)."""
    said: list[str] = []
    seen: set[tuple[tuple[str, ...], Atom]] = set()
    replies: dict[int, str | None] = {}
    contexts: dict[int, tuple[str | None, ReplyContext]] = {}
    turn = -1

    def close() -> None:
        if turn >= 0:
            contexts[turn] = (replies.get(turn), ReplyContext(fold("\n".join(said)), leaves=frozenset(seen)))

    for ev in sorted(result.events, key=lambda ev: ev.goal_index):  # stable: a goal's events keep their order
        if ev.goal_index != turn:
            close()
            turn = ev.goal_index
        if ev.kind == "user_message" and ev.content:
            said.append(ev.content)
        elif ev.kind == "tool_result" and ev.result is not None and ev.result.ok:
            seen.update(_leaves(ev.result.content))
        elif ev.kind == "agent_message" and not ev.replayed:
            replies[ev.goal_index] = ev.content
    close()
    return contexts


class Completion:
    """Fraction of the task's answer goals whose final reply gives the exact answer; None without such a goal."""

    name = JudgeName.COMPLETION

    async def score(self, result: EpisodeResult) -> Score:
        if failed(result):
            return unscoreable(result, self.name)
        turns = [i for i, t in enumerate(result.task.goals) if t.answer is not None]
        if not turns:
            return score_for(result, self.name, value=None)
        per_goal: list[float | None] = [None] * len(result.task.goals)
        errors: list[str] = []
        contexts = turn_contexts(result)
        for i in turns:
            reply, context = contexts.get(i, (None, ReplyContext()))
            if not played(result, i):
                verdict = AnswerVerdict(False, ["answer:not_played"])
            elif reply is None:
                verdict = AnswerVerdict(False, ["answer:no_reply"])
            else:
                verdict = match_reply(result.task.goals[i].answer, reply, context)
            per_goal[i] = 1.0 if verdict.correct else 0.0
            errors += [f"goal{i}:{e}" for e in verdict.errors]
        right = sum(v for v in per_goal if v is not None)
        return score_for(
            result,
            self.name,
            value=right / len(turns),
            per_goal=per_goal,
            errors=errors,
            details={"answer_turns": len(turns), "right_turns": int(right)},
        )
