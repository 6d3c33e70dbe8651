"""Intent primitives: atomic user goals with their gold chains, generated from the live world state.

A primitive is a function ``(state, rng, focus) -> Intent | None``. It reads the state of the conversation
so far (is the light already on? has this device been looked up?) to derive its chain by walking the
dependency graph: an unknown id gets its lookup as a ``support`` call, an off device its ``set_power`` as a
``core`` call. It never changes the state: the composer executes the chain and keeps the intent only if
every call succeeds. ``focus`` is the entity the previous turn was about, offered so a primitive can follow
up on it ("now dim it"); a primitive is free to ignore it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sim.core import GoldCall
from worlds.domains.multidomain.state import WorldState

Answer = Callable[[Sequence[Any]], str]
"""Builds the gold answer from the contents of the primary path's results, in call order."""


@dataclass(frozen=True)
class Focus:
    """The entity a turn is about: what a later turn may refer back to."""

    key: str
    """``kind:id`` as the state knows it, e.g. ``device:living_floor_lamp``."""
    name: str
    """How the explicit rendering names it; a coreferential rendering must not contain it."""
    pronoun: str = "it"


@dataclass(frozen=True)
class Intent:
    primitive: str
    explicit: str
    """Self-contained: names every entity."""
    calls: tuple[GoldCall, ...]
    coreferential: str | None = None
    """Leans on the previous turn's focus instead of naming it; kept only when that turn named it."""
    paraphrases: tuple[str, ...] = ()
    alternatives: tuple[tuple[GoldCall, ...], ...] = ()
    focus: Focus | None = None
    answer: Answer | None = field(default=None, repr=False)
    """For questions: the facts the reply must convey, built from the real tool results."""


Primitive = Callable[[WorldState, random.Random, Focus | None], Intent | None]


def pick_focus(state: WorldState, focus: Focus | None, kind: str, candidates: Sequence[str], rng: random.Random) -> str:
    """Follow up on the previous turn's entity when it is one of ``candidates``, else pick one at random."""
    if focus is not None and focus.key.startswith(f"{kind}:") and focus.key.split(":", 1)[1] in candidates:
        return focus.key.split(":", 1)[1]
    return rng.choice(list(candidates))


def pick_any(
    state: WorldState, focus: Focus | None, kind: str, candidates: Sequence[str], rng: random.Random
) -> str | None:
    """``pick_focus``, or None when there is no candidate (the primitive does not apply)."""
    return pick_focus(state, focus, kind, candidates, rng) if candidates else None


def combine(first: Intent, second: Intent) -> Intent | None:
    """One turn asking for two things ("... Also, ..."), as users do: the first intent's chain, then the
    second's. None when the second names the first's entity (its coreferential rendering would name it)."""
    if first.focus is not None and first.focus.name in second.explicit:
        return None
    split = len(first.calls)

    def answer(contents: Sequence[Any]) -> str:
        parts = [
            intent.answer(part)
            for intent, part in ((first, contents[:split]), (second, contents[split:]))
            if intent.answer is not None
        ]
        return " ".join(parts)

    return Intent(
        primitive=f"{first.primitive}+{second.primitive}",
        explicit=f"{first.explicit} Also, {_lower_first(second.explicit)}",
        coreferential=None
        if first.coreferential is None
        else f"{first.coreferential} Also, {_lower_first(second.explicit)}",
        paraphrases=tuple(f"{p} And {_lower_first(second.explicit)}" for p in first.paraphrases[:1]),
        calls=(*first.calls, *second.calls),
        alternatives=(
            *((*path, *second.calls) for path in first.alternatives),
            *((*first.calls, *path) for path in second.alternatives),
        ),
        focus=first.focus,
        answer=answer if first.answer is not None or second.answer is not None else None,
    )


def _lower_first(text: str) -> str:
    """'Set the ...' -> 'set the ...'; a leading name or acronym ('I', 'BBC') stays as it is."""
    word = text.split(" ", 1)[0]
    return text if (len(word) > 1 and word[1:2].isupper()) or word == "I" else text[:1].lower() + text[1:]
