"""Answer facts: does the final reply of a question goal convey the facts of its ``gold_answer``?

``Goal.gold_answer`` is prose ("The Brita jug costs £22.50 and is 12 in stock."). Core API accuracy passes a
question goal as soon as its lookup is called; this judge reads what the agent then told the user. The facts are
the checkable atoms of the gold answer, each matched in an equivalent form, deterministically:

- dates (``2026-03-02``): ISO, "2 March 2026", "March 2, 2026", "Mar 2" (the year, when the reply states one,
  must agree);
- times (``14:00``): "14:00", "2 pm", "2:00 PM";
- emails, and quoted text ("I can come and fix the boiler Tuesday morning."), case- and accent-blind;
- numbers outside dates and times (prices, counts, percentages) that the request does not itself state:
  numerically, rounding to the decimals the reply states, signs ignored (a "+3.53%" change said as "up 3.53%");
- names: capitalised spans of the gold answer that do not open a sentence, or that the goal's gold arguments
  also name (so "Forecast" or "Pending" opening a sentence are not facts; "Ben Walsh", "Dubai" are).
  The facts depend on the task alone, never on what the agent did.

- nothing: where the goal's exact answer (``Goal.answer``) is empty (no rows, or a row of nulls), the fact is
  that nothing matches, stated as ``judges.answers.answer_empty`` reads it ("none", "there aren't any"; a refusal
  such as
  "I'm sorry, I can't help with that." states nothing).

A goal is right when its reply states every fact. Goals without a gold answer, or whose gold answer has no
checkable fact, are not scored; an episode without any is None (not applicable). What is not caught: a reply that
states every fact and adds a wrong one, paraphrased names, units (°C vs °F).
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from functools import lru_cache
from typing import cast

from judges.answers.answer_empty import gives_empty, is_empty
from judges.answers.answer_normalise import fold, number_matches, numbers_in
from judges.common.shared_views import of_object
from judges.common.trace_view import agent_events, failed, score_for, unscoreable
from judges.common.value_normalise import MONTH_NAMES, MONTHS
from judges.names import JudgeName
from sim.core import EpisodeResult, Goal, Score

_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DAY_MONTH = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({MONTH_NAMES})\.?(?:,?\s+(\d{{4}}))?\b", re.IGNORECASE
)
_MONTH_DAY = re.compile(rf"\b({MONTH_NAMES})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b", re.IGNORECASE)
_TIME_24 = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)(?:\s*([ap])\.?m\.?)?", re.IGNORECASE)
_TIME_AMPM = re.compile(r"\b(1[0-2]|0?[1-9])\s*([ap])\.?m\.?\b", re.IGNORECASE)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_QUOTED = re.compile(r"[\"“]([^\"”]{3,})[\"”]|(?<![\w'])'([^']{3,})'(?![\w'])")
_NAME = re.compile(r"\b[A-Z][\w'’&-]*(?:[ \t]+(?:[A-Z][\w'’&-]*|of|de|la|van|von|the|and|&))*(?<!\s)")
_NOT_NAMES = frozenset({"usd", "eur", "gbp", "am", "pm"})

_SENTENCE_START = re.compile(r"(?:^|[.:;!?—(]\s*|\n)\s*$")

Facts = dict[str, list[object]]


def facts_of(gold: str, named: str, asked: str = "") -> Facts:
    """The checkable facts of a gold answer; ``named`` (the folded gold arguments) vouches for names that open a
    sentence; numbers the request ``asked`` states ("the last 10 trading days", "16 GB") are the user's, not
    facts to report."""
    dates, times, emails, quoted, candidates, stated = _gold_facts(gold)
    names: list[object] = []
    for name, opens in candidates:
        if (not opens or name in named) and name not in names:
            names.append(name)
    theirs = _asked_numbers(asked)
    return {
        "date": list(dates),
        "time": list(times),
        "email": list(emails),
        "quote": list(quoted),
        "name": names,
        "number": [n for n in stated if n not in theirs],
    }


GoldFacts = tuple[
    tuple[object, ...],
    tuple[int, ...],
    tuple[str, ...],
    tuple[str, ...],
    tuple[tuple[str, bool], ...],
    tuple[Decimal, ...],
]
"""(dates, times, emails, quotes, (name, opens a sentence) in order, numbers): what a gold answer's text states."""


@lru_cache(maxsize=4096)
def _gold_facts(gold: str) -> GoldFacts:
    """What ``gold`` states, before the goal's arguments and request pick among it. Kept: it depends on the task
    alone and every trial of a task asks again (immutable values; ``facts_of`` copies them into fresh lists)."""
    quoted = [fold(a or b) for a, b in _QUOTED.findall(gold)]
    rest = _QUOTED.sub(" ", gold)
    dates: list[object] = list(_reply_dates(rest))
    rest = _without_dates(rest)
    times = [_minutes(m) for m in _TIME_24.finditer(rest)]
    rest = _TIME_24.sub(" ", rest)
    emails = [e.casefold() for e in _EMAIL.findall(rest)]
    rest = _EMAIL.sub(" ", rest)
    candidates: list[tuple[str, bool]] = []
    for m in _NAME.finditer(rest):
        name = fold(m.group().strip(" .'’"))
        opens = _SENTENCE_START.search(rest[: m.start()]) is not None
        name = re.sub(r"(?:\s+(?:of|de|la|van|von|the|and|&))+$", "", name)
        if len(name) > 2 and name not in _NOT_NAMES:
            candidates.append((name, opens))
    numbers = [n for n, _ in numbers_in(fold(rest), with_one=False)]
    return (
        tuple(dates),
        tuple(t for t in times if t is not None),
        tuple(emails),
        tuple(quoted),
        tuple(candidates),
        tuple(numbers),
    )


@lru_cache(maxsize=4096)
def _asked_numbers(asked: str) -> tuple[Decimal, ...]:
    """The numbers a request states (the user's, not facts to report)."""
    return tuple(n for n, _ in numbers_in(fold(asked), with_one=False))


def _minutes(m: re.Match[str]) -> int | None:
    hour, minute = int(m[1]), int(m[2])
    half = (m[3] or "").lower()
    if half == "p" and hour < 12:
        hour += 12
    elif half == "a" and hour == 12:
        hour = 0
    return hour * 60 + minute


def _reply_dates(text: str) -> list[tuple[int | None, int, int]]:
    found: list[tuple[int | None, int, int]] = [(int(m[1]), int(m[2]), int(m[3])) for m in _ISO_DATE.finditer(text)]
    found += [(int(m[3]) if m[3] else None, MONTHS[m[2].casefold()], int(m[1])) for m in _DAY_MONTH.finditer(text)]
    found += [(int(m[3]) if m[3] else None, MONTHS[m[1].casefold()], int(m[2])) for m in _MONTH_DAY.finditer(text)]
    return found


def _reply_times(text: str) -> set[int]:
    times = {t for m in _TIME_24.finditer(text) if (t := _minutes(m)) is not None}
    for m in _TIME_AMPM.finditer(text):
        hour = int(m[1]) % 12 + (12 if m[2].lower() == "p" else 0)
        times.add(hour * 60)
    return times


def missing_facts(facts: Facts, reply: str) -> list[str]:
    """The facts ``reply`` does not state, as 'kind:value'."""
    folded = fold(reply)
    missing: list[str] = []
    # The reply is read for a kind of fact only where the gold answer has one (the reading is most of the cost).
    dates = _reply_dates(reply) if facts["date"] else []
    for fact in facts["date"]:
        year, month, day = cast(tuple[int | None, int, int], fact)
        if not any((m, d) == (month, day) and (y is None or year is None or y == year) for y, m, d in dates):
            missing.append(f"date:{year or '*'}-{month:02d}-{day:02d}")
    times = _reply_times(reply) if facts["time"] else set()
    missing += [f"time:{t // 60:02d}:{t % 60:02d}" for t in cast(list[int], facts["time"]) if t not in times]
    missing += [f"{kind}:{v}" for kind in ("email", "quote", "name") for v in facts[kind] if str(v) not in folded]
    missing += ["nothing"] if any(not gives_empty(folded, answer) for answer in facts.get("nothing", ())) else []
    stated = [abs(n) for n, _ in numbers_in(_without_dates_and_times(folded))] if facts["number"] else []
    for gold in facts["number"]:
        assert isinstance(gold, Decimal)
        if not any(number_matches(s, abs(gold)) for s in stated):
            missing.append(f"number:{gold}")
    return missing


def _without_dates(text: str) -> str:
    for pattern in (_ISO_DATE, _DAY_MONTH, _MONTH_DAY):
        text = pattern.sub(" ", text)
    return text


def _without_dates_and_times(text: str) -> str:
    for pattern in (_ISO_DATE, _DAY_MONTH, _MONTH_DAY, _TIME_24, _TIME_AMPM):
        text = pattern.sub(" ", text)
    return text


def goal_facts(goal: Goal) -> Facts:
    """The facts of a goal's ``gold_answer``; where its exact answer is empty, the fact that nothing matches."""
    facts = facts_of(goal.gold_answer or "", _named(goal), goal.user.explicit)
    if goal.answer is not None and is_empty(goal.answer):
        facts["nothing"] = [goal.answer]
    return facts


def _kept_facts(goal: Goal) -> Facts:
    """``goal_facts``, once per goal object (``judges.common.shared_views``: a run's trials of a task share it); read
    only."""
    return of_object(goal, "answer_facts.facts", lambda: goal_facts(goal))


def _named(goal: Goal) -> str:
    """What the goal's gold arguments name: entities looked up or acted on (a request's words are not facts)."""
    return fold(" ".join(json.dumps(c.arguments, ensure_ascii=False) for path in goal.paths() for c in path))


class AnswerFacts:
    """Fraction of the question goals (with a checkable ``gold_answer``) whose final reply states every fact."""

    name = JudgeName.ANSWER_FACTS

    async def score(self, result: EpisodeResult) -> Score:
        if failed(result):
            return unscoreable(result, self.name)
        per_goal: list[float | None] = []
        errors: list[str] = []
        for g, goal in enumerate(result.task.goals):
            if not goal.gold_answer or goal.outcome == "decline":
                per_goal.append(None)
                continue
            events = agent_events(result, g)
            facts = _kept_facts(goal)
            if not any(facts.values()):
                per_goal.append(None)
                continue
            reply = next((ev.content or "" for ev in reversed(events) if ev.kind == "agent_message"), None)
            missing = ["turn:not_played"] if reply is None else missing_facts(facts, reply)
            per_goal.append(0.0 if missing else 1.0)
            errors += [f"goal{g}:answer:missing:{m}" for m in missing[:5]]
        scored = [v for v in per_goal if v is not None]
        value = sum(scored) / len(scored) if scored else None
        return score_for(result, self.name, value=value, per_goal=per_goal if scored else [], errors=errors)
