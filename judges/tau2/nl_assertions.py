"""τ²'s natural-language assertions ("Agent should refuse to proceed with the cancellation.") judged by a model: the
conversation as the user saw it and the assertions, one JSON verdict per assertion, through the gateway as role
``judge`` (``judges.common.llm_ask``: a malformed answer is asked again, then it is a judge fault).

Without a judge model nothing here runs and the component is reported as not judged, never passed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from judges.common.llm_ask import JudgeModel, json_objects
from sim.core import Event

RUBRIC = """You check a customer-service conversation between a user and an AI agent against assertions about \
what the agent did or said. For each numbered assertion decide whether the conversation shows it is met. Judge \
only from the conversation; an assertion about an action is met only if the agent's messages or tool calls show it.
Answer with one JSON object and nothing else, one entry per assertion in their order: \
{"met": [true|false, ...], "reasons": ["<one sentence>", ...]}"""


@dataclass(frozen=True)
class AssertionVerdict:
    assertion: str
    met: bool
    reason: str


def transcript(events: Sequence[Event]) -> str:
    """The conversation as the judge reads it: the user's and agent's messages and the agent's tool calls."""
    lines = []
    for ev in events:
        if ev.replayed:
            continue
        if ev.kind == "user_message":
            lines.append(f"user: {ev.content or ''}")
        elif ev.kind == "agent_message":
            lines.append(f"agent: {ev.content or ''}")
        elif ev.kind == "tool_call" and ev.call is not None:
            lines.append(f"agent called {ev.call.name}({ev.call.arguments})")
    return "\n".join(lines)


def parse_verdicts(count: int) -> Callable[[str], list[tuple[bool, str]]]:
    """The answer's verdicts, one per assertion in order (a flat object: the judge's JSON reader takes no nesting)."""

    def parse(text: str) -> list[tuple[bool, str]]:
        for data in json_objects(text):
            met = data.get("met")
            if not isinstance(met, list):
                continue
            if len(met) != count or not all(isinstance(m, bool) for m in met):
                raise ValueError(f"'met' must list {count} booleans, one per assertion, not {met!r}")
            reasons = data.get("reasons")
            said = [str(r) for r in reasons] if isinstance(reasons, list) and len(reasons) == count else [""] * count
            return list(zip(met, said, strict=True))
        raise ValueError('no JSON object with a "met" list in the answer')

    return parse


async def judge_assertions(
    model: JudgeModel, events: Sequence[Event], assertions: Sequence[str]
) -> list[AssertionVerdict]:
    """One verdict per assertion, asked in one request."""
    numbered = "\n".join(f"{i}. {a}" for i, a in enumerate(assertions, 1))
    prompt = f"Conversation:\n{transcript(events)}\n\nAssertions:\n{numbered}"
    answers = await model.ask(RUBRIC, prompt, parse_verdicts(len(assertions)))
    return [AssertionVerdict(a, met, reason) for a, (met, reason) in zip(assertions, answers, strict=True)]
