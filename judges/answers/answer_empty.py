"""Empty answers and refusals: when a reply says that nothing matches, and when it only declines to answer.

An exact answer is empty when it has no rows, or is one row of nulls (an aggregate over no rows: ``MAX(x)`` of an
empty selection is ``NULL``, the study's "empty result" too), or holds only blank strings. A reply gives an empty
answer when it states that nothing matches, as the answer judges check a fact: "no", "none", "nothing", "zero",
"0", "empty", "there aren't any", "did not find any", "no results" — and it is not a refusal. A refusal ("I'm
sorry, I can't help with that.", "I am unable to answer", "I have no access to the data") states nothing about the
data, so it never gives an answer, empty or not: otherwise the null agent, which always declines, is credited on
every empty question. Texts here are folded (``judges.answers.answer_normalise.fold``).
"""

from __future__ import annotations

import re
from typing import Any

from judges.answers.answer_normalise import rows

_NOT_ANY = (
    r"(?:\bnot|n't|\bnever|\bcannot|\bunable to)(?:\s+\w+){0,3}?\s+"
    r"(?:any|anything|anyone|anybody|find|found|match|matches|matched|exist)"
)
NO = r"(?<!\w)no\b(?!\s+(?:idea|access|way|ability|tools?|permission|means|information|clue|problem|worries)\b)"
"""The word "no" as an answer ("no", "no singers"), not in a phrase that answers nothing ("no idea", "no problem")."""
_NOTHING = re.compile(rf"\b(?:none|nothing|nobody|no one|zero|empty)\b|\b0\b|{NO}|{_NOT_ANY}\b")
_NULL = re.compile(r"\b(?:null|n/a|unknown)\b")
_DECLINE_VERBS = (
    r"help|assist|answer|provide|comply|complete|access|fulfil|fulfill|support|handle|process|do that|do this"
    r"|look (?:that|this|it) up|share"
)
_REFUSAL = re.compile(
    rf"\b(?:can't|cannot|can not|couldn't|could not|unable to|not able to|won't|will not|not allowed to"
    rf"|not permitted to)\s+(?:\w+\s+){{0,2}}?(?:{_DECLINE_VERBS})\b"
    r"|\b(?:don't|do not|doesn't|does not) have (?:access|the ability|the tools?|any tools?|a tool|permission)\b"
    r"|\bno (?:idea|access|way|ability|tools?|permission|means|information|clue)\b"
)


def is_empty(answer: Any) -> bool:
    """The exact answer has no rows, or one row of nulls (an aggregate over nothing), or only blank strings (there
    is no value to state)."""
    atoms = [a for row in rows(answer) for a in row]
    blank = all(a == "" for a in atoms)
    return blank or (len(rows(answer)) == 1 and all(a is None or a == "" for a in atoms))


def states_nothing(text: str) -> bool:
    """The folded text says that nothing matches ("no", "none", "there aren't any", "0 results"...)."""
    return _NOTHING.search(text) is not None


def refuses(text: str) -> bool:
    """The folded text declines to answer ("I can't help with that", "I'm unable to answer", "no access")."""
    return _REFUSAL.search(text) is not None


def gives_empty(text: str, answer: Any) -> bool:
    """The folded text gives the empty ``answer``: it states that nothing matches (for a row of nulls, "null" or
    "unknown" too), and it does not refuse."""
    if refuses(text):
        return False
    return states_nothing(text) or (bool(rows(answer)) and _NULL.search(text) is not None)
