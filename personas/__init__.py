"""Simulated users: scripted (the task's wordings in styles), LLM-played personas, and the human at a terminal.

``build_user`` turns one user spec (``personas.spec``) into a fresh user for one episode.
"""

from __future__ import annotations

from personas.llm_user import LLMUser
from personas.scripted import ScriptedUser
from personas.spec import UserSpec, parse_user_spec, parse_user_specs
from sim.core import User

__all__ = ["LLMUser", "ScriptedUser", "UserSpec", "build_user", "parse_user_spec", "parse_user_specs"]


def build_user(spec: UserSpec | str, user_model: str | None = None, temperature: float | None = 0.7) -> User:
    """A fresh user for one episode. ``user_model``: the model an ``llm`` user runs on (already resolved)."""
    parsed = parse_user_spec(spec) if isinstance(spec, str) else spec
    if parsed.kind == "scripted":
        return ScriptedUser(parsed)
    if parsed.kind == "human":
        raise ValueError("a human user plays through `squall chat`, not `squall run`")
    if user_model is None:
        raise ValueError(f"user {parsed.label!r} needs a model (--user-model)")
    return LLMUser(parsed, user_model, temperature=temperature)
