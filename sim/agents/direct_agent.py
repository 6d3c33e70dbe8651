"""Direct invocation: the agent writes the whole call sequence of a turn in one reply and never sees a result, as
the API-styles study reports beside its ReAct agents (seed 002, section 4.1 and appendix F); call F1 scores the
sequence.

The harness runs the plan (``sim.agents.direct_plan``) through the runtime in order, so every call is in the trace
as any agent's is (the judges read nothing new), with references to earlier outputs replaced by those outputs.
The reply is what the plan computed: the output of each call that no later call takes, which the answer judges
read as the study's completion (the sequence returns the ground-truth response).

``direct:oracle`` writes its turn's gold path as one plan (calibration: call F1 1.0); ``direct:null`` is the null
agent, which writes none. A plan cannot react to what comes back: no backup path after an outage, no lookup behind
a tool search. Direct invocation measures planning on a clean world; under stressors it shows what a plan made
blind loses.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from sim.agents import oracle_words as words
from sim.agents.baselines import reply_without_calls
from sim.agents.direct_plan import Plan, PlanError, PlannedCall, parse_plan, references, render_plan, resolve
from sim.agents.oracle_words import setback
from sim.agents.text_prompt import ToolStyle, render_tools
from sim.core import AgentRuntime, ChatMessage, EpisodeGold, Event, ModelRequest, ToolCall, ToolResult

FORMAT = """\
Write every call the request needs, in order, as one JSON list and nothing else:
[{"name": "<tool name>", "arguments": {<the arguments>}, "label": "<a name for its output>"}, ...]
The calls run after your reply, one after another; you do not see their results.
To pass an earlier call's output to a later call, write "$LABEL$" as the argument's whole value, or \
"$LABEL.field$" for one field of the output (of each of its records, when it is a list of records).
If no tool can do what is asked, or a value you need is missing, reply in words instead, without a list."""
NO_RESULT = "The calls returned no result."


async def run_plan(plan: Plan, runtime: AgentRuntime, step: int) -> list[tuple[PlannedCall, ToolResult]]:
    """Run every call of the plan in order, each with its references resolved; every call runs, whatever the
    earlier ones returned (the plan was written blind). A reference to no output is an agent fault, and the call
    goes on with it as written, for the tool to refuse."""
    schemas = {t.name: t.parameters for t in runtime.current_tools()}
    outputs: dict[str, object] = {}
    ran: list[tuple[PlannedCall, ToolResult]] = []
    for planned in plan.calls:
        arguments, missing = resolve(planned, outputs, schemas.get(planned.name, {}))
        if missing:
            detail = f"{planned.name}: {', '.join(missing)} names no earlier output"
            runtime.fault("agent", "agent:unresolved_reference", detail, step)
        result = await runtime.call(ToolCall(id="", name=planned.name, arguments=arguments), step=step)
        if planned.label and result.ok:
            outputs[planned.label] = result.content
        ran.append((planned, result))
    return ran


def plan_reply(plan: Plan, ran: list[tuple[PlannedCall, ToolResult]]) -> str:
    """What the plan computed: each successful output no later call took, one JSON line each."""
    if not plan.calls:
        return plan.text
    taken = references(plan.calls)
    lines = [
        content if isinstance(content := result.content, str) else json.dumps(content, ensure_ascii=False)
        for planned, result in ran
        if result.ok and planned.label not in taken
    ]
    return "\n".join(lines) or NO_RESULT


def system_prompt(instructions: str, runtime: AgentRuntime, style: ToolStyle) -> str:
    tools = runtime.current_tools()
    parts = [instructions.strip()] if instructions.strip() else []
    if tools:
        parts += [f"# Tools\n\nYou can use these tools:\n\n{render_tools(tools, style)}", f"# Format\n\n{FORMAT}"]
    return "\n\n".join(parts)


def transcript(history: Sequence[Event], system: str) -> list[ChatMessage]:
    """The conversation as the model saw it: user messages and its own replies (it never saw a tool result)."""
    messages = [ChatMessage(role="system", content=system)]
    for ev in history:
        if ev.kind == "user_message":
            messages.append(ChatMessage(role="user", content=ev.content or ""))
        elif ev.kind == "agent_message":
            messages.append(ChatMessage(role="assistant", content=ev.content or "(no reply)"))
    return messages


class DirectAgent:
    """A model that plans the turn's calls in one reply (one model request per turn)."""

    def __init__(
        self,
        name: str,
        model: str,
        max_tokens: int | None = None,
        temperature: float | None = None,
        tool_style: ToolStyle = "schema",
    ) -> None:
        self.name = name
        self.model = model
        self._max_tokens = max_tokens
        self._temperature = temperature
        self._tool_style: ToolStyle = tool_style

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        system = system_prompt(runtime.instructions, runtime, self._tool_style)
        request = ModelRequest(
            role="agent",
            model=self.model,
            messages=tuple(transcript(history, system)),
            max_tokens=self._max_tokens,
            temperature=self._temperature,
            seed=runtime.seed,
        )
        response = await runtime.llm.complete(request)
        text, step = response.text.strip(), runtime.llm.steps
        plan = parse_plan(text)
        if isinstance(plan, PlanError):
            if not response.truncated:  # a plan cut at the output limit is recorded as such (agent:output_truncated)
                runtime.fault("agent", "agent:parse_error:plan", f"{plan.message} | output: {text[:300]}", step)
            return text
        return plan_reply(plan, await run_plan(plan, runtime, step))


class DirectOracle:
    """The gold path of the turn written as one plan and run blind; replies with the gold answer. Asks for what
    the user withheld and does a goal once, as the oracle does."""

    name = "direct:oracle"

    def __init__(self, gold: EpisodeGold) -> None:
        self._gold = gold

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        turn = self._gold.current()
        if (reply := reply_without_calls(history, self._gold, runtime)) is not None:
            return reply
        written = render_plan([PlannedCall(g.name, dict(g.arguments), f"out{n}") for n, g in enumerate(turn.gold)])
        plan = parse_plan(written)  # through the parser a model's plan takes
        assert isinstance(plan, Plan), plan
        ran = await run_plan(plan, runtime, step=1)
        if not all(result.ok for _, result in ran):
            core = {c.name for c in turn.gold if c.role == "core"}
            setbacks = [setback(planned.name, result) for planned, result in ran if not result.ok]
            return words.gave_up(setbacks, [p.name for p, result in ran if result.ok and p.name in core])
        return turn.gold_answer or "Done."
