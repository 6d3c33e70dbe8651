"""Asking a judge model for a verdict: one JSON object, asked again with the problem named when it is unusable.

Structured by instruction, not by native tools, so it works on every endpoint (the embedded model included).
After ``RETRIES`` re-asks the judge raises ``JudgeOutputError``: the verdict is then a judge fault, which
``--resume`` and ``squall score`` run again — the judge is retried, never the episode.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from sim.core import ChatMessage, ModelRequest, ModelResponse

RETRIES = 2
AGAIN = "Answer with the JSON object only."
MAX_TOKENS = 300
Complete = Callable[[ModelRequest], Awaitable[ModelResponse]]
T = TypeVar("T")
_OBJECT = re.compile(r"\{.*?\}", re.DOTALL)


class JudgeOutputError(RuntimeError):
    """The judge model did not give a usable verdict after its retries."""


def json_objects(text: str) -> Iterator[dict[str, Any]]:
    """The JSON objects written in a model's answer, in order (prose around them is ignored)."""
    for found in _OBJECT.finditer(text):
        try:
            data = json.loads(found.group(0))
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict):
            yield data


JUDGE_TALLY: ContextVar[list[ModelResponse] | None] = ContextVar("JUDGE_TALLY", default=None)
"""The responses of the judge model to the judge scoring now (``judge_usage``): judges of different episodes score in
tasks of their own, so each tally holds its own judge's requests only."""


@contextmanager
def judge_usage() -> Iterator[list[ModelResponse]]:
    """Collect the judge model's responses to the judge scoring inside the block (its usage goes on its Score)."""
    tally: list[ModelResponse] = []
    token = JUDGE_TALLY.set(tally)
    try:
        yield tally
    finally:
        JUDGE_TALLY.reset(token)


def usage_of(responses: list[ModelResponse]) -> dict[str, float]:
    """What a judge's requests cost, as ``Usage`` fields (``Score.details["judge_usage"]``)."""
    return {
        "requests": len(responses),
        "input_tokens": sum(r.input_tokens for r in responses),
        "output_tokens": sum(r.output_tokens for r in responses),
        "cost": round(sum(r.cost for r in responses), 8),
        "cached": sum(r.cached for r in responses),
    }


class JudgeModel:
    """A model a judge asks, through the gateway as role ``judge``, at temperature 0 with a fixed seed."""

    def __init__(self, complete: Complete, model: str, seed: int = 0) -> None:
        self._complete = complete
        self.model = model
        self._seed = seed

    async def ask(self, system: str, prompt: str, parse: Callable[[str], T]) -> T:
        """``parse(answer)``, asking again while it raises ValueError (its message says what is wrong)."""
        messages = [ChatMessage(role="system", content=system), ChatMessage(role="user", content=prompt)]
        problem = ""
        for _ in range(RETRIES + 1):
            request = ModelRequest(
                role="judge",
                model=self.model,
                messages=tuple(messages),
                max_tokens=MAX_TOKENS,
                temperature=0.0,
                seed=self._seed,
            )
            response = await self._complete(request)
            if (tally := JUDGE_TALLY.get()) is not None:
                tally.append(response)
            try:
                return parse(response.text)
            except ValueError as error:
                problem = str(error)
                messages += [
                    ChatMessage(role="assistant", content=response.text),
                    ChatMessage(
                        role="user",
                        content=f"That is not a usable answer: {problem}. Answer with the JSON object only.",
                    ),
                ]
        raise JudgeOutputError(f"the judge model gave no usable verdict after {RETRIES} retries: {problem}")


def parse_yes_no(key: str) -> Callable[[str], tuple[bool, str]]:
    """A parser of ``{"<key>": true|false, "reasons": "..."}``."""

    def parse(text: str) -> tuple[bool, str]:
        for data in json_objects(text):
            if key in data:
                if not isinstance(data[key], bool):
                    raise ValueError(f'"{key}" must be true or false, not {data[key]!r}')
                return data[key], str(data.get("reasons", "")).strip()
        raise ValueError(f'no JSON object with "{key}" in the answer')

    return parse
