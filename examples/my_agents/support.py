"""A minimal agent behind ``python:``: from ``examples/`` (the folder holding ``my_agents/``),

    ../.venv/bin/squall run --world smart_home --limit 2 --agent python:my_agents.support:respond

squall awaits ``respond`` once per conversation turn with the request (``sim.agents.outside.protocol``: the
conversation as the user saw it, the instructions, and ``mcp_url``, where the episode's tools are served over MCP).
This one calls no model: it lists the tools, calls one that only reads, and says what it did. Put your agent here
(a pydantic-ai ``Agent`` with ``toolsets=[MCPToolset(request.mcp_url)]``, your framework's, your own loop).
"""

from mcp import Client

from sim.agents.outside.protocol import AgentReply, AgentRequest


async def respond(request: AgentRequest) -> AgentReply:
    asked = request.messages[-1].content  # the user's latest message
    async with Client(request.mcp_url) as client:
        tools = (await client.list_tools()).tools
        lookups = [
            t.name
            for t in tools
            if t.annotations is not None and t.annotations.read_only_hint and not t.input_schema.get("required")
        ]
        if not lookups:
            return AgentReply(reply=f"You asked: {asked!r}. I see {len(tools)} tools and none I may call blind.")
        result = await client.call_tool(lookups[0], {})
    outcome = "failed" if result.is_error else "answered"
    return AgentReply(reply=f"You asked: {asked!r}. I called {lookups[0]}, which {outcome}; that is all I can do.")
