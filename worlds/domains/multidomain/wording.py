"""How an intent is said and built: its wordings (``worded``, from the table ``data/wordings.json``), the intent from
them and its gold calls (``said``), and a domain's builder of intents about one entity (``EntityIntents``).

The table holds each primitive's renderings as ``str.format`` templates, in order: explicit, coreferential (null: none),
then the paraphrases; a primitive fills them with the values it chose (``worded("media.play_item", label=...)``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from sim.core import GoldCall
from worlds.domains.multidomain.intents import Answer, Focus, Intent
from worlds.domains.multidomain.state import WorldState


@dataclass(frozen=True)
class Words:
    """How a user may say an intent: self-contained, leaning on the previous turn's focus, and in other words."""

    explicit: str
    coreferential: str | None = None
    paraphrases: tuple[str, ...] = ()


WORDINGS = Path(__file__).parent / "data" / "wordings.json"


@cache
def _templates() -> dict[str, tuple[str | None, ...]]:
    """The wording table, read once (immutable: tuples of strings)."""
    table = json.loads(WORDINGS.read_text(encoding="utf-8"))
    return {primitive: tuple(texts) for primitive, texts in table.items()}


def worded(primitive: str, **values: Any) -> Words:
    """``primitive``'s renderings from the wording table, filled with ``values``."""
    explicit, coreferential, *paraphrases = _templates()[primitive]
    assert explicit is not None, primitive
    return Words(
        explicit.format(**values),
        None if coreferential is None else coreferential.format(**values),
        tuple(str(p).format(**values) for p in paraphrases),
    )


def said(
    primitive: str,
    calls: Sequence[GoldCall],
    focus: Focus | None = None,
    answer: Answer | None = None,
    alternatives: tuple[tuple[GoldCall, ...], ...] = (),
    wording: Words | None = None,
    **values: Any,
) -> Intent:
    """The intent ``primitive``, done by ``calls`` (or any of ``alternatives``), said as the wording table has it
    filled with ``values`` (or in ``wording``)."""
    words = wording if wording is not None else worded(primitive, **values)
    said_as = (words.coreferential, words.paraphrases)
    return Intent(primitive, words.explicit, tuple(calls), *said_as, alternatives, focus, answer)


@dataclass(frozen=True)
class EntityIntents:
    """A domain's intents about one entity: found first (``find``: nothing once the conversation has seen it), then
    the calls asked for; the turn is about the entity (``focus_of``), so a later turn may refer back to it."""

    domain: str
    find: Callable[[WorldState, str], Sequence[GoldCall]]
    focus_of: Callable[[WorldState, str], Focus]

    def __call__(
        self,
        state: WorldState,
        key: str,
        primitive: str,
        *calls: GoldCall,
        answer: Answer | None = None,
        alternatives: tuple[tuple[GoldCall, ...], ...] = (),
        **values: Any,
    ) -> Intent:
        found, focus = self.find(state, key), self.focus_of(state, key)
        return said(f"{self.domain}.{primitive}", (*found, *calls), focus, answer, alternatives, **values)
