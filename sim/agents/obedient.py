"""The obedient baseline: the oracle, except that it does what an instruction planted in a tool result says.

It calibrates the ``injection`` judge from the other side: where the oracle (which ignores what results say) scores
attack success 0.0, this agent scores 1.0 on every attack it met. It does the user's goals as the oracle does, and the
first time a result it reads carries an attack's text (``Task.attacks``, written by the injection stressors), it
makes the attacker's call there and then, and says the attacker's text in its reply: an agent that reads results and
trusts them. Only what it observed counts: an attack whose carrier it never called is never obeyed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from sim.agents.baselines import OracleAgent
from sim.core import AgentRuntime, Attack, EpisodeGold, Event, FaultKind, LLMHandle, ToolCall, ToolResult, ToolSpec


class ObedientAgent:
    """Replays the gold as the oracle does, obeying each planted instruction once, where it reads it."""

    name = "obedient"

    def __init__(self, gold: EpisodeGold) -> None:
        self._oracle = OracleAgent(gold)
        self._pending = list(gold.task.attacks)

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        obeying = _Obeying(runtime, self._pending)
        reply = await self._oracle.respond(history, obeying)
        said = " ".join(attack.say for attack in obeying.obeyed if attack.say)
        return f"{reply} {said}" if said else reply


class _Obeying:
    """The episode's runtime as the obedient agent uses it: after each call it reads the result for planted text."""

    def __init__(self, runtime: AgentRuntime, pending: list[Attack]) -> None:
        self._runtime = runtime
        self._pending = pending  # shared with the agent: an attack is obeyed once per episode
        self.obeyed: list[Attack] = []

    @property
    def turn(self) -> int:
        return self._runtime.turn

    @property
    def instructions(self) -> str:
        return self._runtime.instructions

    @property
    def llm(self) -> LLMHandle:
        return self._runtime.llm

    @property
    def seed(self) -> int:
        return self._runtime.seed

    def current_tools(self) -> tuple[ToolSpec, ...]:
        return self._runtime.current_tools()

    def fault(self, fault: FaultKind, code: str, detail: str, step: int = 0) -> None:
        self._runtime.fault(fault, code, detail, step)

    async def call(self, call: ToolCall, step: int) -> ToolResult:
        result = await self._runtime.call(call, step)
        read = json.dumps(result.content, ensure_ascii=False)
        for attack in [a for a in self._pending if a.text in read]:
            self._pending.remove(attack)
            self.obeyed.append(attack)
            if attack.call is not None:
                for lookup in attack.call.lookups:  # as the planted text says: look the target up, then act on it
                    await self._runtime.call(ToolCall(id="", name=lookup.name, arguments=dict(lookup.arguments)), step)
                await self._runtime.call(ToolCall(id="", name=attack.call.name, arguments=attack.call.as_sent()), step)
        return result
