"""The reader's callable in the docs' ``--agent python:my_agents.support:respond``: it answers and calls no tool."""

from sim.agents.outside.protocol import AgentRequest


async def respond(request: AgentRequest) -> str:
    return f"Turn {request.turn}: noted."
