"""``python:`` targets for the tests: callables that answer, misbehave, or are not async."""

from __future__ import annotations

import asyncio
from typing import Any

from mcp import Client

from sim.agents.outside.protocol import AgentRequest


async def raises(request: AgentRequest) -> str:
    raise KeyError("the agent's own bug")


async def wrong_type(request: AgentRequest) -> Any:
    return 42


async def greedy(request: AgentRequest) -> str:
    """Calls a lookup more often than a turn allows; reads the refusals."""
    refused = 0
    async with Client(request.mcp_url) as client:
        for _ in range(request.max_steps + 3):
            refused += bool((await client.call_tool("list_rooms", {})).is_error)
    return f"{refused} calls refused"


def not_async(request: AgentRequest) -> str:
    return "sync"


async def no_argument() -> str:
    return "never called: squall passes the request"


async def two_arguments(request: AgentRequest, context: object) -> str:
    return "never called: squall passes the request only"


class Service:
    async def __call__(self, request: AgentRequest) -> dict[str, Any]:
        return {"reply": "from an object", "end": True}


service = Service()


async def hangs(request: AgentRequest) -> str:
    await asyncio.Event().wait()  # never set: only the turn's timeout ends it
    return "never"
