"""The outside agent of docs/evaluate-your-agent.md: a pydantic-ai Agent with an MCPToolset pointed at the episode,
behind ``python:``.

    squall run --world smart_home --agent python:tests.support.outside_example:respond

Tested with a ``FunctionModel`` in place of the hosted model (``test_outside_python``); keep it as the page shows.
"""

from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from sim.agents.outside.protocol import AgentReply, AgentRequest

agent = Agent("openai:gpt-5-mini", defer_model_check=True)


async def respond(request: AgentRequest) -> AgentReply:
    *earlier, latest = request.messages  # the conversation as the user saw it; the tools are at mcp_url
    history = [ModelRequest([UserPromptPart(m.content)]) if m.role == "user" else ModelResponse([TextPart(m.content)])
               for m in earlier]  # fmt: skip
    result = await agent.run(
        latest.content, message_history=history, instructions=request.instructions,
        toolsets=[MCPToolset(request.mcp_url)],
    )  # fmt: skip
    usage = result.usage
    reported = {"requests": usage.requests, "input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}
    return AgentReply(reply=result.output, usage=reported)
