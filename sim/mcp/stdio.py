"""One episode served over stdio: for a program that owns the runtime and hands its stdin/stdout to one MCP client
(a CLI agent spawned per episode, ``squall serve --mcp``)."""

from __future__ import annotations

import anyio
from mcp.server.stdio import stdio_server

from sim.core import AgentRuntime
from sim.mcp.episode import McpEpisode
from sim.mcp.server import build_server


async def serve_stdio(
    runtime: AgentRuntime,
    *,
    max_steps: int | None = None,
    stdin: anyio.AsyncFile[str] | None = None,
    stdout: anyio.AsyncFile[str] | None = None,
) -> None:
    """Serve ``runtime``'s tools over stdio (the process's own by default) until the client closes its end.

    The whole connection is one turn: ``max_steps`` bounds its calls, and an exception ``runtime.call`` raised is
    raised here once the connection ends (as ``McpHub.serve`` does at a turn's end). The server's instructions are
    the runtime's."""
    episode = McpEpisode()
    async with episode.turn(runtime, max_steps):
        await serve_episode_stdio(episode, runtime.instructions, stdin, stdout)


async def serve_episode_stdio(
    episode: McpEpisode,
    instructions: str | None,
    stdin: anyio.AsyncFile[str] | None = None,
    stdout: anyio.AsyncFile[str] | None = None,
) -> None:
    """Serve an episode whose turn is open elsewhere (``McpHub.serve``) over stdio too, until the client closes."""
    server = build_server(lambda _ctx: episode, instructions=instructions)
    async with stdio_server(stdin, stdout) as (read, write):
        await server.run(read, write, server.create_initialization_options())
