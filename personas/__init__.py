"""Simulated users: scripted now; LLM-driven and human users arrive as new modules."""

from __future__ import annotations

from personas.scripted import ScriptedUser
from sim.core import User


def build_user(spec: str) -> User:
    """``scripted`` (explicit wording) or ``scripted:coreferential``."""
    kind, _, option = spec.partition(":")
    if kind == "scripted":
        if option not in ("", "explicit", "coreferential"):
            raise ValueError(f"user spec {spec!r}: scripted takes 'explicit' or 'coreferential'")
        return ScriptedUser("coreferential" if option == "coreferential" else "explicit")
    raise ValueError(f"unknown user spec {spec!r}; known: scripted, scripted:coreferential")
