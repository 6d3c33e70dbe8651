"""Answers judged by meaning: the final reply of a question goal against its prose gold answer.

``answer_facts`` (always on) checks the gold answer's checkable facts by rules, offline and deterministic. This
judge, ``answer_match`` (``--answer-judge``), reads the reply as a whole:

- ``embedding``: MiniLM cosine similarity of the reply and the gold answer at or above ``--answer-threshold``.
  Each text is embedded alone, so a re-score computes the same number. Similarity is blind to a wrong number in a
  right sentence ("$189.50" vs "$198.50"): a coarse offline check, weaker than ``answer_facts`` on facts;
- ``llm``: a judge model reads the request, the gold answer and the reply, and answers ``{"correct": true|false,
  "reasons": ...}`` (``judges.common.llm_ask``: asked again when unusable, then a judge fault).

Goals judged: played goals with a ``gold_answer``; the score is the share answered right, None without one.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol

from judges.common.llm_ask import JudgeModel, parse_yes_no
from judges.common.trace_view import agent_events, failed, played, score_for, unscoreable
from judges.names import JudgeName
from sim.core import EpisodeResult, Score

if TYPE_CHECKING:
    from sim.core.embedding import Embedder

ANSWER_RUBRIC = """You check whether an AI assistant's reply answers the user's question correctly. You are given the \
question, a reference answer with the correct facts, and the reply. The reply is correct when it states the \
reference's facts (numbers, names, dates, values) without contradicting any of them; wording, order and extra \
politeness do not matter; a reply that hedges, asks back, or gives a different value is not correct. Answer with \
one JSON object and nothing else: {"correct": true or false, "reasons": "<one sentence>"}"""


class AnswerRater(Protocol):
    mode: str

    async def correct(self, question: str, gold: str, reply: str) -> tuple[bool, str]: ...


class EmbeddingAnswers:
    mode = "embedding"

    def __init__(self, embedder: Embedder, threshold: float) -> None:
        self._embedder = embedder
        self.threshold = threshold

    async def correct(self, question: str, gold: str, reply: str) -> tuple[bool, str]:
        if not reply.strip():
            return False, "no reply"
        similarity = await asyncio.to_thread(self._embedder.similarity_alone, reply, gold)
        return similarity >= self.threshold, f"similarity {similarity:.3f} (threshold {self.threshold})"


class LLMAnswers:
    mode = "llm"

    def __init__(self, judge: JudgeModel) -> None:
        self._judge = judge

    async def correct(self, question: str, gold: str, reply: str) -> tuple[bool, str]:
        prompt = f"Question: {question}\nReference answer: {gold}\nReply to check: {reply or '(empty)'}"
        return await self._judge.ask(ANSWER_RUBRIC, prompt, parse_yes_no("correct"))


class AnswerMatch:
    """Share of the question goals whose final reply gives the gold answer, as the rater reads it."""

    name = JudgeName.ANSWER_MATCH

    def __init__(self, rater: AnswerRater) -> None:
        self.rater = rater

    async def score(self, result: EpisodeResult) -> Score:
        if failed(result):
            return unscoreable(result, self.name)
        verdicts: dict[int, tuple[bool, str]] = {}
        for g, goal in enumerate(result.task.goals):
            if not goal.gold_answer or not played(result, g):
                continue
            events = agent_events(result, g)
            question = " / ".join(ev.content or "" for ev in events if ev.kind == "user_message")
            reply = next((ev.content or "" for ev in reversed(events) if ev.kind == "agent_message"), "")
            verdicts[g] = await self.rater.correct(question, goal.gold_answer, reply)
        if not verdicts:
            return score_for(result, self.name, value=None)
        return score_for(
            result,
            self.name,
            value=sum(ok for ok, _ in verdicts.values()) / len(verdicts),
            per_goal=[
                (1.0 if verdicts[g][0] else 0.0) if g in verdicts else None for g in range(len(result.task.goals))
            ],
            errors=[f"goal{g}:answer:wrong" for g, (ok, _) in verdicts.items() if not ok],
            details={"mode": self.rater.mode, "reasons": {str(g): why for g, (_, why) in verdicts.items()}},
        )
