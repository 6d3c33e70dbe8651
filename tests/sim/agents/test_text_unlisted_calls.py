"""The text agent sends a well-formed call to an unlisted tool to the runtime, which may know it (a new name)."""

from __future__ import annotations

from sim.agents.text_agent import TextProtocolAgent
from sim.core import ModelRequest, ModelResponse, ToolCall, ToolResult, ToolSpec, failure

TOOLS = (ToolSpec(name="get_weather", description="Weather for a city.", parameters={"type": "object"}),)


class ScriptedLLM:
    def __init__(self, replies: list[str]) -> None:
        self.replies = replies
        self.steps = 0
        self.seen: list[ModelRequest] = []

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.seen.append(request)
        self.steps += 1
        return ModelResponse(text=self.replies.pop(0))


class Runtime:
    """Knows ``fetch_weather`` (the v2 name) though the toolkit lists only ``get_weather``."""

    turn = 0
    seed = 0
    instructions = ""

    def __init__(self, replies: list[str]) -> None:
        self.llm = ScriptedLLM(replies)
        self.calls: list[str] = []
        self.faults: list[str] = []

    def current_tools(self) -> tuple[ToolSpec, ...]:
        return TOOLS

    async def call(self, call: ToolCall, step: int) -> ToolResult:
        self.calls.append(call.name)
        if call.name == "fetch_weather":
            return ToolResult(call_id="c", status="success", content={"city": call.arguments["city"], "temp": 20})
        return failure(call, "not_found", "endpoint_moved", "410 Gone: moved to 'fetch_weather'.")

    def fault(self, fault: str, code: str, detail: str, step: int = 0) -> None:
        self.faults.append(code)


async def test_a_call_to_the_name_an_error_gave_reaches_the_runtime() -> None:
    runtime = Runtime(
        [
            'Action: get_weather\nAction Input: {"city": "Paris"}',
            'Action: fetch_weather\nAction Input: {"city": "Paris"}',
            "Final Answer: 20 degrees in Paris.",
        ]
    )
    agent = TextProtocolAgent("text", "m")
    reply = await agent.respond([], runtime)  # type: ignore[arg-type]
    assert reply == "20 degrees in Paris."
    assert runtime.calls == ["get_weather", "fetch_weather"] and runtime.faults == []
    assert "20" in (runtime.llm.seen[-1].messages[-1].content or "")  # the observation of the v2 call


async def test_what_is_not_a_well_formed_call_stays_a_parse_error() -> None:
    runtime = Runtime(["Action: get the weather please!!\nAction Input: {}", "Final Answer: sorry."])
    reply = await TextProtocolAgent("text", "m").respond([], runtime)  # type: ignore[arg-type]
    assert reply == "sorry." and runtime.calls == [] and runtime.faults == ["agent:parse_error:unknown_tool"]
