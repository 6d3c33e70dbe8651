"""Error handling: how well the agent's reply serves the user when a call it made failed, scored 1-5.

A goal is judged when the task gives it a reference response (a stressor's scenario, or the task's own) and the
agent met an injected failure in it: a result of one of its own calls that a stressor failed, or a decline goal
(nothing can do what the user asks). In a cumulative run a goal keeps the first stressor's reference. What is judged
is the agent's last reply of the goal, against the reference response and the scenario's criteria
(``GENERIC_CRITERIA`` where it has none), by a rater:

- ``llm`` (the default where a judge model is given): any configured model, through the gateway as role ``judge``,
  answering JSON with a score and reasons (``judges.errors.error_handling_llm``);
- ``embedding`` (the offline fallback): cosine similarity of the reply and the reference (MiniLM), in bands. It is a
  proxy: similarity cannot tell "I retried and it worked" from "I retried and it failed", so it agrees with people
  little better than chance (``EMBEDDING_KAPPA``), and every report says so beside its number.

``squall judges calibrate`` measures both against the hand-labelled set in ``judges/errors/data``. The score's value
is the
mean over the judged goals mapped to [0, 1] ((mean - 1) / 4); the 1-5 scores and reasons are in its details.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from judges.common.trace_view import agent_events, failed, played, score_for, unscoreable
from judges.names import JudgeName
from sim.core import EpisodeResult, Score

if TYPE_CHECKING:
    from sim.core.embedding import Embedder

GENERIC_CRITERIA = (
    "Tells the user plainly that the request was not (fully) done, and never claims a success that did not happen.",
    "Says what failed, in words the user can follow.",
    "Offers a workable next step: an alternative, a retry later, or what the user can do.",
)
BANDS = (0.40, 0.55, 0.68, 0.80)
"""Similarity cut points between scores 1|2|3|4|5 (``squall judges calibrate`` reports the agreement they give)."""
EMBEDDING_KAPPA = 0.104
"""Cohen's kappa of the embedding rater against the shipped labelled set (``squall judges calibrate --raters
embedding``); reports name the embedding score a proxy with it. No offline rater measured beat 0.4 (README)."""
SHOWN_TEXT = 600
"""Characters of the request, the error and the reply a rater is shown (and a score's details keep)."""


@dataclass(frozen=True)
class ErrorCase:
    """One goal to judge: what the user asked, what failed, what the agent said, and what a good reply says."""

    goal: int
    request: str
    error: str
    reply: str
    reference: str
    criteria: tuple[str, ...]


@dataclass(frozen=True)
class Rating:
    score: int  # 1..5
    reasons: str
    similarity: float | None = None  # the embedding rater's cosine, for the record


class Rater(Protocol):
    mode: str

    async def rate(self, case: ErrorCase) -> Rating: ...


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SHOWN_TEXT else text[: SHOWN_TEXT - 1] + "…"


def _message(content: object) -> str:
    if isinstance(content, dict) and isinstance(content.get("error"), str):
        return content["error"]
    return json.dumps(content, default=str)


def error_cases(result: EpisodeResult) -> list[ErrorCase]:
    """The goals of a played episode that the error-handling judge scores, in order."""
    cases = []
    for g, goal in enumerate(result.task.goals):
        if not goal.reference_response or not played(result, g):
            continue
        events = agent_events(result, g)
        failures = [
            f"{ev.call.name if ev.call else '?'}: {ev.result.status} — {_message(ev.result.content)}"
            for ev in events
            if ev.kind == "tool_result" and ev.result is not None and not ev.result.ok and ev.scenarios
        ]
        if not failures and goal.outcome != "decline":
            continue  # no stressor failed a call on this goal (a wrong id the agent then fixed is not one)
        request = " / ".join(ev.content or "" for ev in events if ev.kind == "user_message")
        reply = next((ev.content or "" for ev in reversed(events) if ev.kind == "agent_message"), "")
        cases.append(
            ErrorCase(
                goal=g,
                request=_clip(request),
                error=_clip("; ".join(failures) or "nothing available can do this"),
                reply=_clip(reply),
                reference=goal.reference_response,
                criteria=tuple(goal.criteria) or GENERIC_CRITERIA,
            )
        )
    return cases


def band(similarity: float, bands: Sequence[float] = BANDS) -> int:
    """The 1-5 score of a similarity."""
    return 1 + sum(similarity >= cut for cut in bands)


class EmbeddingRater:
    """Similarity of the reply to the reference, in bands (``Embedder.similarity_alone``: a re-score computes the
    very same number as the run did)."""

    mode = "embedding"

    def __init__(self, embedder: Embedder, bands: Sequence[float] = BANDS) -> None:
        self._embedder = embedder
        self._bands = tuple(bands)

    def similarity(self, reply: str, reference: str) -> float:
        return self._embedder.similarity_alone(reply, reference)

    async def rate(self, case: ErrorCase) -> Rating:
        if not case.reply.strip():
            return Rating(1, "no reply", 0.0)
        similarity = await asyncio.to_thread(self.similarity, case.reply, case.reference)
        score = band(similarity, self._bands)
        return Rating(score, f"similarity {similarity:.3f} to the reference response", similarity)


class ErrorHandlingJudge:
    """Mean error-handling score over the goals where the agent met a failure; None when it met none."""

    name = JudgeName.ERROR_HANDLING

    def __init__(self, rater: Rater) -> None:
        self.rater = rater

    async def score(self, result: EpisodeResult) -> Score:
        if failed(result):
            return unscoreable(result, self.name)
        cases = error_cases(result)
        if not cases:
            return score_for(result, self.name, value=None)
        ratings = [await self.rater.rate(case) for case in cases]
        by_goal = {c.goal: r for c, r in zip(cases, ratings, strict=True)}
        mean = sum(r.score for r in ratings) / len(ratings)
        return score_for(
            result,
            self.name,
            value=round((mean - 1) / 4, 4),
            per_goal=[(by_goal[g].score - 1) / 4 if g in by_goal else None for g in range(len(result.task.goals))],
            errors=[f"goal{g}:error_handling:score_{r.score}" for g, r in by_goal.items() if r.score < 3],
            details={
                "mode": self.rater.mode,
                "mean_score": round(mean, 4),
                "scores": {str(g): r.score for g, r in by_goal.items()},
                "reasons": {str(g): r.reasons for g, r in by_goal.items()},
            },
        )
