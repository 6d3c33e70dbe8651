"""Argument values judged by a model (``--arg-match llm``, or per parameter): "Miami, FL" for "Miami, Florida".

The argument matcher compares synchronously, inside every judge that matches arguments; a model is asked
asynchronously. So before judging an episode, each such judge awaits ``ArgMatcher.prepare``: every string pair
the comparisons may meet (the agent's value and the gold's, its accepted values and the schema default, for each
call of a function the goal's gold calls, on parameters matched by the model) is collected and each new pair asked
once; the comparison then reads the answer. Pairs equal after normalisation, and pairs whose numbers differ
("21 degrees" / "22 degrees"), are decided without a model, as in embedding mode.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from judges.calls.arg_match import ArgMatcher, collect_pairs, free_text, normalise, schema_properties
from judges.common.llm_ask import JudgeModel, parse_yes_no
from sim.core import EpisodeResult

VALUE_RUBRIC = """You check whether two values given for the same parameter of a function call mean the same thing \
(the same place, item, person, time or amount written differently: "Miami, FL" and "Miami, Florida" do; "Miami" and \
"Orlando" do not). Answer with one JSON object and nothing else: {"same": true or false, "reasons": "<a few words>"}"""


class LLMValues:
    """The model's answers on value pairs, asked once per pair for the life of the judges."""

    def __init__(self, judge: JudgeModel) -> None:
        self._judge = judge
        self._same: dict[tuple[str, str], bool] = {}

    def decided(self, a: str, b: str) -> bool:
        try:
            return self._same[(a, b)]
        except KeyError:  # a comparison prepare did not foresee: a bug, surfaced as a judge fault
            raise RuntimeError(f"no model verdict prepared for {a!r} vs {b!r}") from None

    async def prepare(self, matcher: ArgMatcher, result: EpisodeResult) -> None:
        for where, a, b in _pairs(matcher, result):
            if (a, b) not in self._same:
                prompt = f"Parameter: {where}\nValue A: {a}\nValue B: {b}"
                self._same[(a, b)], _ = await self._judge.ask(VALUE_RUBRIC, prompt, parse_yes_no("same"))


def _pairs(matcher: ArgMatcher, result: EpisodeResult) -> Iterator[tuple[str, str, str]]:
    schemas = {s.name: s.parameters for s in result.tools}
    for g, goal in enumerate(result.task.goals):
        golds = [c for path in goal.paths() for c in path]
        for ev in result.events:
            if ev.kind != "tool_call" or ev.call is None or ev.replayed or ev.goal_index != g:
                continue
            call = ev.call
            props = schema_properties(schemas.get(call.name))
            agent = normalise(call.arguments)
            for gold in (c for c in golds if c.name == call.name):
                expected = normalise(gold.arguments)
                for key, value in agent.items():
                    if matcher.mode_for(call.name, key) != "llm" or not free_text(props.get(key)):
                        continue
                    others: list[Any] = [normalise(v) for v in gold.accepted.get(key, ())]
                    if key in expected:
                        others.insert(0, expected[key])
                    elif isinstance(props.get(key), dict) and "default" in props[key]:
                        others.append(normalise(props[key]["default"]))
                    for other in others:
                        texts: list[str] = []
                        collect_pairs(value, other, texts)
                        for a, b in zip(texts[::2], texts[1::2], strict=True):
                            yield f"{call.name}.{key}", a, b
