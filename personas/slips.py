"""The LLM user's own slips, caught before a message reaches the agent (each is a user fault, retried).

- ``user:assistant_like``: the simulator answered as the assistant ("Sure, I've turned it off", a tool call);
- ``user:invented_fact``: a number the task, the persona and the conversation never gave;
- ``user:gave_withheld``: an underspecified user stated the value it was to hold back;
- ``user:premature_end``: ending the conversation while goals remain, or right after the agent only offered or
  asked (agreeing to an action is not its completion);
- ``user:premature_goal``: moving on while the user still owes the goal a value or a correction;
- ``user:prompt_echo``: the simulator repeats its own instructions (six words in a row from them), or writes a
  note about the conversation in parentheses instead of a message;
- ``user:repeated``: the same message as its previous one, word for word (a simulator loop);
- ``user:off_goal``: a goal's opening message that says nothing of the goal (none of its values, few of its words);
- ``user:empty_message``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from personas.styles import asks_question

_ASSISTANT_LIKE = re.compile(
    r"^(?:sure|certainly|of course|absolutely|great)[,!.]?\s+(?:i|i'll|i will|i can|i've|let me)\b|"
    r"\bhow (?:can|may) i (?:help|assist)\b|\bis there anything else (?:i|you'd like me)\b|"
    r"\bi(?:'ve| have) (?:now )?(?:turned|set|added|created|booked|sent|cancell?ed|scheduled|updated|switched|"
    r"ordered|played|found|completed|done)\b|\bas an ai\b|\bi am an? (?:ai|assistant|language model)\b|"
    r"\bhere (?:is|are) (?:the|your) (?:results?|details|information)\b|"
    r"^\s*(?:thought|action|action input|final answer)\s*:|<API_CALL>|\{\s*\"(?:name|api|tool)\"\s*:",
    re.IGNORECASE | re.MULTILINE,
)
_PROPOSAL = re.compile(
    r"\b(?:shall i|should i|would you like me to|do you want me to|want me to|can you confirm|please confirm|"
    r"is that (?:ok|okay|right|correct)|ready to proceed|go ahead\?)",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:,\d{3})*(?:\.\d+)?(?![\w])")


def assistant_like(message: str) -> bool:
    return bool(_ASSISTANT_LIKE.search(message.replace("’", "'")))


def numbers_in(text: str) -> set[float]:
    out: set[float] = set()
    for raw in _NUMBER.findall(text):
        try:
            out.add(float(raw.replace(",", "")))  # "1,200" is twelve hundred
        except ValueError:
            continue
    return out


def invented_numbers(message: str, known_texts: Iterable[str]) -> list[str]:
    """Numbers in ``message`` that none of ``known_texts`` contains (the user made them up)."""
    known: set[float] = set()
    for text in known_texts:
        known |= numbers_in(text)
    return sorted({f"{n:g}" for n in numbers_in(message) if n not in known})


def only_offered(agent_message: str) -> bool:
    """The agent's last message proposes or asks instead of reporting a done action."""
    return bool(_PROPOSAL.search(agent_message)) or asks_question(agent_message)


_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    _WORD.findall(
        "the a an and or to of in on at for with my me i you it is be please can could would will this that "
        "set turn make get show tell what how from by up down off"
    )
)


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.casefold()) if len(w) > 2 and w not in _STOP}


def off_goal(message: str, goal_text: str, values: list[str]) -> bool:
    """An opening message that states none of the goal's values and shares under a third of its content words."""
    lowered = message.casefold()
    if any(v.casefold() in lowered for v in values):
        return False
    wanted = content_words(goal_text)
    return bool(wanted) and len(wanted & content_words(message)) * 3 < len(wanted)


def echoes_prompt(message: str, instructions: str, goal_texts: list[str], n: int = 6) -> bool:
    """Six words in a row from the simulator's instructions (not from a goal, which it may quote), or a message
    that is all a parenthesised note."""
    stripped = message.strip()
    if stripped.startswith("(") and stripped.endswith(")"):
        return True
    said = _WORD.findall(message.casefold())
    allowed = {
        tuple(g[i : i + n]) for text in goal_texts for g in [_WORD.findall(text.casefold())] for i in range(len(g))
    }
    words = _WORD.findall(instructions.casefold())
    grams = {tuple(words[i : i + n]) for i in range(len(words) - n + 1)} - allowed
    return any(tuple(said[i : i + n]) in grams for i in range(len(said) - n + 1))
