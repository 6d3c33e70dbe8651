"""Episode runtimes served over the Model Context Protocol, for agents that live outside squall.

``open_mcp_hub`` runs one streamable-HTTP server for a run and ``McpHub.serve`` puts an episode's runtime at its own
URL for one turn; ``serve_stdio`` serves one runtime over stdio. Knows only ``sim.core``.

Toolkit changes (stressors change the tools per goal and after calls; MCP clients call only tools they listed):

- ``tools/list`` asks the runtime anew every time and tells clients not to cache it (``ttlMs: 0``).
- A call that changed the toolkit sends ``notifications/tools/list_changed`` on its own response stream before its
  result: every revision and transport that streams the response carries it (pydantic-ai's ``MCPToolset`` drops its
  cached list on it, so its next model step sees the renamed or found tool).
- A turn that starts with a different toolkit (the user's goal moved) tells clients listening on
  ``subscriptions/listen`` (2026-07-28). Nothing else can reach a client between requests on that revision, so an
  agent that keeps one connection across turns must list again per turn: pydantic-ai's ``MCPToolset`` does when the
  agent's run enters it (the default) and otherwise needs ``cache_tools=False``.
- A call by a name the client never listed is still answered (the runtime decides, as in-process): a client that
  calls by name reaches an endpoint a stressor renamed without documenting it; pydantic-ai refuses such names itself.
"""

from sim.mcp.episode import NO_TURN, EpisodeClosed
from sim.mcp.hub import McpHub, open_mcp_hub
from sim.mcp.mapping import mcp_result, mcp_tool
from sim.mcp.stdio import serve_stdio

__all__ = ["NO_TURN", "EpisodeClosed", "McpHub", "mcp_result", "mcp_tool", "open_mcp_hub", "serve_stdio"]
