"""Personas: who the simulated user is — a short description, default styles and the facts it knows.

One YAML file per persona under ``personas/data/`` (or any file given by path):

    name: busy_parent
    description: A busy parent typing quick messages on a phone.
    styles: [terse, impatient]       # used when the user spec names no style
    facts: {name: Sam Rivera, city: Lisbon}
    chatter: ["Sorry, kids are yelling."]   # small talk a verbose user opens with

A user answers the agent only from the task's goals and these facts; anything else it does not know.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from personas.styles import STYLES
from sim.core.bounded_read import SETTINGS_LIMIT, InputFileError, read_text
from sim.core.structured import load_yaml
from sim.core.text_check import surrogate_problem

PERSONA_DIR = Path(__file__).parent / "data"
DEFAULT_PERSONA = "default"


class PersonaError(ValueError):
    """A persona file is missing or malformed; the message names the file and the field."""


class Persona(BaseModel):
    """A simulated user's identity, style defaults and what it knows."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$", description="Identifier (the file's stem).")
    description: str = Field(min_length=1, description="One or two sentences: who this user is.")
    styles: tuple[str, ...] = Field(default=("explicit",), description="Styles used when the user spec names none.")
    facts: dict[str, str] = Field(default_factory=dict, description="What the user knows beyond its goals.")
    chatter: tuple[str, ...] = Field(default=(), description="Small talk a verbose user opens with.")

    @field_validator("styles")
    @classmethod
    def _known_styles(cls, styles: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [s for s in styles if s not in STYLES]
        if unknown:
            raise ValueError(f"unknown style(s) {', '.join(unknown)}; known: {', '.join(STYLES)}")
        return styles

    @field_validator("facts", mode="before")
    @classmethod
    def _facts_as_text(cls, facts: object) -> object:
        if isinstance(facts, dict):
            return {str(k): str(v) for k, v in facts.items()}
        return facts


def persona_names() -> list[str]:
    """The personas that ship with squall."""
    return sorted(p.stem for p in PERSONA_DIR.glob("*.yaml"))


@lru_cache(maxsize=64)  # read once per run, not once per episode; a Persona is frozen
def load_persona(name_or_path: str) -> Persona:
    """A shipped persona by name, or a YAML file by path. Raises PersonaError naming the file and field."""
    path = Path(name_or_path)
    if path.suffix not in (".yaml", ".yml"):
        path = PERSONA_DIR / f"{name_or_path}.yaml"
        if not path.is_file():
            raise PersonaError(f"unknown persona {name_or_path!r}; known: {', '.join(persona_names())}")
    try:  # a regular file of settings size; YAML without alias bombs or deep nesting
        raw = load_yaml(read_text(path, SETTINGS_LIMIT), path)
    except InputFileError as exc:
        raise PersonaError(str(exc)) from None
    if not isinstance(raw, dict):
        raise PersonaError(f"{path}: expected a mapping of persona fields, got {type(raw).__name__}")
    raw.setdefault("name", path.stem)
    if problem := surrogate_problem(raw):
        raise PersonaError(f"{path}: {problem}")
    try:
        return Persona.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise PersonaError(f"{path}: field {field}: {first['msg']}") from exc
