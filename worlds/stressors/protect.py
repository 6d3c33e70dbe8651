"""What no rewording of a user's request may change, and the check that a rewording kept it.

Protected: every gold argument value of the goal (strings and numbers, case-insensitive) and every other value
its gold accepts for a parameter (``GoldCall.accepted``: a leaderboard's possible answers, BFCL's "Miami, Florida"
beside "Miami"), the ``refers_to`` name, and name-like tokens (a digit, or a capital letter not opening a sentence,
bar the pronoun I). The ``perturb`` operators never edit a protected span; a paraphrase written elsewhere is used
only if it carries every one of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from sim.core import Goal
from worlds.stressors.meaning import carries_meaning

Mask = list[bool]
"""One flag per character of the original text: True where no operator may change it."""
_TOKEN = re.compile(r"\S+")
PRONOUNS = frozenset({"I", "I'd", "I'm", "I've", "I'll"})


def values_in(value: Any) -> Iterator[str]:
    """Every string and number inside a gold argument, as the text may spell it."""
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, int | float):
        yield str(value)
        if isinstance(value, float) and value.is_integer():
            yield str(int(value))
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from values_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from values_in(item)


def protected_mask(text: str, values: list[str]) -> Mask:
    """Flags the spans of ``text`` no operator may touch: every occurrence of a value (case-insensitive), and
    name-like tokens (a digit, or a capital letter not opening a sentence, bar the pronoun I)."""
    mask = [False] * len(text)
    lower = text.lower()
    for value in {v for v in values if v.strip()}:
        needle, start = value.lower(), 0
        while (at := lower.find(needle, start)) >= 0:
            mask[at : at + len(needle)] = [True] * len(needle)
            start = at + 1
    previous_end = -1
    for match in _TOKEN.finditer(text):
        token = match.group()
        opens = match.start() == 0 or text[: match.start()].rstrip()[-1:] in ".?!:;"
        core = token.strip(".,!?;:\"'()")
        name_like = any(c.isdigit() for c in token) or (not opens and core[:1].isupper() and core not in PRONOUNS)
        if name_like:
            start = match.start()
            if previous_end >= 0 and text[previous_end:start].isspace():
                start = previous_end  # the space between two name-like tokens belongs to the name
            mask[start : match.end()] = [True] * (match.end() - start)
            previous_end = match.end()
        else:
            previous_end = -1
    return mask


def goal_values(goal: Goal) -> list[str]:
    """What no rewording of the goal's request may change: its gold argument values, every value the gold accepts
    instead (``""``, BFCL's "may be omitted", protects nothing) and the name it refers to."""
    calls = [call for path in goal.paths() for call in path]
    values = [v for call in calls for v in values_in(call.arguments)]
    values += [v for call in calls for accepted in call.accepted.values() for v in values_in(accepted)]
    if goal.user.refers_to:
        values.append(goal.user.refers_to)
    return values


def protected_spans(text: str, values: list[str]) -> list[str]:
    """The runs of ``text`` that no rewording may change, as strings."""
    mask = protected_mask(text, values)
    spans, start = [], None
    for i, flag in enumerate([*mask, False]):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            spans.append(text[start:i].strip(" .,!?;:\"'()"))
            start = None
    return [s for s in spans if s]


def keeps_values(original: str, candidate: str, values: list[str]) -> bool:
    """Every protected span of the original is in the candidate (case-insensitive), and it says something else."""
    lowered = candidate.lower()
    return candidate.strip() != original.strip() and all(
        s.lower() in lowered for s in protected_spans(original, values)
    )


def usable(goal: Goal, candidates: Iterable[str]) -> list[str]:
    """The candidates that keep every protected span of the goal's explicit request and carry its meaning (the
    length and overlap floors of ``worlds.stressors.meaning``: "All done." is no rewording of a request)."""
    values, original = goal_values(goal), goal.user.explicit
    return [c for c in candidates if keeps_values(original, c, values) and carries_meaning(original, c)]
