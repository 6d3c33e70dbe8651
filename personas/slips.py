"""The LLM user's own slips, caught before a message reaches the agent (each is a user fault, retried).

- ``user:assistant_like``: the simulator answered as the assistant ("Sure, I've turned it off", a tool call);
- ``user:invented_fact``: a number the task, the persona and the conversation never gave;
- ``user:gave_withheld``: an underspecified user stated the value it was to hold back;
- ``user:premature_end``: ending the conversation while goals remain, or right after the agent only offered or
  asked (agreeing to an action is not its completion);
- ``user:premature_goal``: moving on while the user still owes the goal a value or a correction;
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
