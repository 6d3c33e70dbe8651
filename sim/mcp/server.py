"""The MCP server proper: one low-level ``Server`` whose handlers find the episode a request is for and answer
through it (``sim.mcp.episode``). The HTTP hub finds it by the token in the URL, stdio serves one fixed episode."""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import mcp_types as types
from mcp.server.caching import CacheHint
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions

from sim.mcp.episode import McpEpisode

SERVER_NAME = "squall"


def squall_version() -> str:
    """The installed squall's version, for ``serverInfo`` (clients show it and log it with their bug reports)."""
    try:
        return version("squall")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


EpisodeOf = Callable[[ServerRequestContext[Any, Any]], McpEpisode]
"""The episode a request is for; raises ``EpisodeClosed`` when there is none."""


def _no_header_schema(_name: str) -> None:
    """Tools declare no ``Mcp-Param`` headers. Saying so spares the 2026-07-28 HTTP entry a ``tools/list`` of its
    own before every ``tools/call`` (the schema it would look them up in)."""
    return None


class _SquallServer(Server[Any]):
    """Handshake-era clients read ``listChanged`` from the ``initialize`` answer, which the SDK builds from
    ``NotificationOptions`` (default: nothing changes); squall's toolkits do change."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        options = notification_options or NotificationOptions(tools_changed=True)
        return super().create_initialization_options(options, experimental_capabilities, extensions)


def build_server(episode_of: EpisodeOf, instructions: str | None = None) -> Server[Any]:
    """A server that lists and calls the tools of whichever episode ``episode_of`` names for a request."""

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return episode_of(ctx).list_tools()

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        episode = episode_of(ctx)

        async def list_changed() -> None:
            # On the call's own response stream: delivered on every revision and transport that streams the
            # response (SSE, stdio), and the only route to a client that opened no listen stream.
            await ctx.session.send_notification(types.ToolListChangedNotification(), related_request_id=ctx.request_id)

        return await episode.call_tool(params, list_changed if ctx.request_id is not None else None)

    async def listen(
        ctx: ServerRequestContext[Any, Any], params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        return await episode_of(ctx).listen(ctx, params)

    return _SquallServer(
        SERVER_NAME,
        version=squall_version(),
        instructions=instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_subscriptions_listen=listen,
        get_tool_input_schema=_no_header_schema,
        cache_hints={"tools/list": CacheHint(ttl_ms=0, scope="private")},
    )
