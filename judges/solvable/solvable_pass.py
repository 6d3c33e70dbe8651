"""StableToolBench's solvable pass, judged by a model: does the agent's final answer solve the user's query?

ToolBench queries carry no gold arguments (``gold:no_arguments``: core API accuracy is n/a for them), so the study's
pass criterion is a judge's reading of the answer, as StableToolBench's evaluator reads it: the query, the final
answer and a compact summary of the calls made and what they returned, one verdict of ``solved`` / ``unsolved`` /
``unsure`` with its reasons (stored in the score's details). The value follows StableToolBench's solve rate:
solved 1.0, unsure 0.5, unsolved 0.0. StableToolBench asks several times and averages; squall asks once at
temperature 0 with a fixed seed (the same request would get the same answer, and the response cache keeps it), so
one verdict per goal. An empty final answer is unsolved without asking (StableToolBench: no ``Finish``, no answer).

Judged: tasks tagged ``toolbench``. Without a judge model (``--judge-model``) nothing is asked and the verdict is
``solvable:not_judged`` with no value: never a silent pass. A malformed verdict is asked again
(``judges.common.llm_ask``), then it is a judge fault that ``squall score`` runs again.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from judges.common.llm_ask import JudgeModel, json_objects
from judges.common.trace_view import agent_events, failed, played, score_for, unscoreable
from judges.names import JudgeName
from sim.core import EpisodeResult, Event, Score

TAG: Final = "toolbench"
VERDICTS: Final = ("solved", "unsure", "unsolved")
"""StableToolBench's answer statuses, best first (the calibration's scale)."""
VALUE: Final = {"solved": 1.0, "unsure": 0.5, "unsolved": 0.0}
NOT_JUDGED: Final = "solvable:not_judged"
SHOWN_CALLS = 12
"""Calls of a trajectory the judge reads (the last ones); earlier ones are counted, not shown."""
RESULT_CHARS = 300

RUBRIC = """You judge whether an AI assistant's final answer solves a user's query. You are given the query, a \
summary of the tool calls the assistant made with what each returned, and the final answer.
- "unsolved": the answer refuses, apologises, asks back, gives up, or answers only part of what the query asks; or \
it states facts (names, numbers, results, actions done) that the tool results do not support or that contradict them.
- "solved": the answer gives every part of what the query asks, and what it states is backed by the tool results.
- "unsure": the answer is a positive, direct response, but the tool results are not enough to tell whether it is \
right or complete.
Answer with one JSON object and nothing else: {"verdict": "solved" | "unsolved" | "unsure", "reasons": \
"<one or two sentences>"}"""


@dataclass(frozen=True)
class SolvableVerdict:
    verdict: str
    reasons: str


def parse_verdict(text: str) -> SolvableVerdict:
    """The judge's verdict, strictly: one of ``VERDICTS`` (case folded), else a ValueError that names the problem."""
    for data in json_objects(text):
        if "verdict" not in data:
            continue
        said = data["verdict"]
        if not isinstance(said, str) or said.strip().lower() not in VERDICTS:
            raise ValueError(f'"verdict" must be one of {", ".join(VERDICTS)}, not {said!r}')
        return SolvableVerdict(said.strip().lower(), str(data.get("reasons", "")).strip())
    raise ValueError('no JSON object with a "verdict" in the answer')


def trajectory(events: Sequence[Event]) -> str:
    """The agent's calls and what it observed of each, one line a call (the last ``SHOWN_CALLS``; results cut)."""
    lines = []
    for ev in events:
        if ev.kind != "tool_result" or ev.call is None or ev.result is None:
            continue
        content = ev.result.content
        shown = content if isinstance(content, str) else json.dumps(content, sort_keys=True, default=str)
        if len(shown) > RESULT_CHARS:
            shown = shown[:RESULT_CHARS] + "…"
        arguments = json.dumps(ev.call.arguments, sort_keys=True, default=str)
        lines.append(f"{ev.call.name}({arguments}) -> {ev.result.status}: {shown}")
    hidden = len(lines) - SHOWN_CALLS
    kept = lines[-SHOWN_CALLS:]
    return "\n".join(([f"({hidden} earlier calls not shown)"] if hidden > 0 else []) + kept) or "(no tool calls)"


def prompt(query: str, calls: str, answer: str) -> str:
    return f"Query: {query}\n\nTool calls and results:\n{calls}\n\nFinal answer: {answer}"


async def judge_answer(model: JudgeModel, query: str, calls: str, answer: str) -> SolvableVerdict:
    """One verdict; an empty answer is unsolved without asking."""
    if not answer.strip():
        return SolvableVerdict("unsolved", "no final answer")
    return await model.ask(RUBRIC, prompt(query, calls, answer), parse_verdict)


class SolvablePass:
    """Per goal of a ToolBench task: the judge model's verdict on the final answer (1.0 / 0.5 / 0.0); None for
    other tasks, and for every goal when the run has no judge model (``solvable:not_judged``)."""

    name = JudgeName.SOLVABLE_PASS

    def __init__(self, judge_model: JudgeModel | None = None) -> None:
        self.judge_model = judge_model

    async def score(self, result: EpisodeResult) -> Score:
        if TAG not in result.task.tags:
            return score_for(result, self.name, value=None)
        if failed(result):
            return unscoreable(result, self.name)
        goals = [g for g in range(len(result.task.goals)) if played(result, g)]
        if self.judge_model is None:
            return score_for(result, self.name, value=None, errors=[NOT_JUDGED], details={"judged": False})
        verdicts: dict[int, SolvableVerdict] = {}
        for g in goals:
            events = agent_events(result, g)
            query = " / ".join(ev.content or "" for ev in events if ev.kind == "user_message")
            answer = next((ev.content or "" for ev in reversed(events) if ev.kind == "agent_message"), "")
            verdicts[g] = await judge_answer(self.judge_model, query, trajectory(events), answer)
        if not verdicts:
            return score_for(result, self.name, value=None)
        per_goal = [VALUE[verdicts[g].verdict] if g in verdicts else None for g in range(len(result.task.goals))]
        details: dict[str, Any] = {
            "judged": True,
            "verdicts": {str(g): v.verdict for g, v in verdicts.items()},
            "reasons": {str(g): v.reasons for g, v in verdicts.items()},
        }
        return score_for(
            result,
            self.name,
            value=sum(VALUE[v.verdict] for v in verdicts.values()) / len(verdicts),
            per_goal=per_goal,
            errors=[f"goal{g}:solvable:{v.verdict}" for g, v in verdicts.items() if v.verdict != "solved"],
            details=details,
        )
