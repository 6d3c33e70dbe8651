"""User spec strings: ``KIND[:STYLE+STYLE...][@PERSONA]``, several in one run separated by commas.

``scripted`` plays the task's wordings; ``llm`` has a model play the persona (``--user-model``); ``human`` is a
person at the terminal (``squall chat`` only). Without styles the
persona's defaults apply; without a persona, the task's (else ``default``). Examples: ``scripted``,
``scripted:coreferential``, ``scripted:terse+underspecified@busy_parent``, ``llm@chatty_retiree``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from personas.persona import DEFAULT_PERSONA, Persona, load_persona
from personas.styles import check_styles
from sim.core.suggest import did_you_mean

UserKind = Literal["scripted", "llm", "human"]
USER_KINDS: tuple[UserKind, ...] = ("scripted", "llm", "human")


@dataclass(frozen=True)
class UserSpec:
    kind: UserKind
    styles: tuple[str, ...] = ()
    """As given; empty: the persona's defaults."""
    persona: str | None = None
    """As given; None: the task's persona, else the default one."""

    @property
    def label(self) -> str:
        """The spec in its one canonical spelling (the user field of episodes, and their report group)."""
        styles = f":{'+'.join(self.styles)}" if self.styles else ""
        persona = f"@{self.persona}" if self.persona else ""
        return f"{self.kind}{styles}{persona}"

    def persona_for(self, task_persona: str | None) -> Persona:
        return load_persona(self.persona or task_persona or DEFAULT_PERSONA)

    def styles_for(self, persona: Persona) -> tuple[str, ...]:
        return self.styles or persona.styles


def parse_user_spec(raw: str) -> UserSpec:
    """One user spec; ValueError naming what is wrong."""
    text = raw.strip()
    head, at, persona = text.partition("@")
    if at and not persona.strip():
        raise ValueError(f"user spec {raw!r}: nothing after '@'; name a persona (or leave out the '@')")
    kind, _, styles_text = head.partition(":")
    if kind not in USER_KINDS:
        hint = did_you_mean(kind, USER_KINDS)
        raise ValueError(f"user spec {raw!r}: unknown kind {kind!r}{hint}; known: {', '.join(USER_KINDS)}")
    styles = tuple(s.strip() for s in styles_text.split("+") if s.strip()) if styles_text else ()
    check_styles(styles)
    if len(set(styles)) != len(styles):
        raise ValueError(f"user spec {raw!r}: a style is named twice")
    spec = UserSpec(kind, styles, persona.strip() or None)
    if spec.persona is not None:
        load_persona(spec.persona)  # an unknown persona fails here, before anything runs
    return spec


def parse_user_specs(raw: str) -> list[UserSpec]:
    """A run's user specs (comma-separated); each distinct once, in the order given."""
    specs = [parse_user_spec(part) for part in raw.split(",") if part.strip()]
    if not specs:
        raise ValueError("user spec is empty; e.g. scripted")
    labels = [s.label for s in specs]
    if len(set(labels)) != len(labels):
        raise ValueError(f"user spec {raw!r}: the same user is named twice")
    return specs
