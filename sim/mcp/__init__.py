"""Episode runtimes served over the Model Context Protocol, for agents that live outside squall.

``open_mcp_hub`` runs one streamable-HTTP server for a run and ``McpHub.serve`` puts an episode's runtime at its own
URL for one turn; ``serve_stdio`` serves one runtime over stdio. Knows only ``sim.core``.
"""

from sim.mcp.episode import NO_TURN, EpisodeClosed
from sim.mcp.hub import McpHub, open_mcp_hub
from sim.mcp.mapping import mcp_result, mcp_tool
from sim.mcp.stdio import serve_stdio

__all__ = ["NO_TURN", "EpisodeClosed", "McpHub", "mcp_result", "mcp_tool", "open_mcp_hub", "serve_stdio"]
