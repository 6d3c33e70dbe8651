"""The hub's door at ``/mcp/<token>``: unknown tokens refused with 404, JSON-RPC batches answered per the client's
protocol revision, and ``serverInfo`` naming squall's version. Raw HTTP where the SDK's client cannot go."""

from __future__ import annotations

import gc
import json
from importlib.metadata import version
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from sim.mcp import NO_TURN, open_mcp_hub
from tests.sim.mcp.fakes import FakeRuntime

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
}


def _call(request_id: Any, name: str, x: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": name, "arguments": {"x": x}}}


def _refused_as_no_episode(response: httpx2.Response) -> None:
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert error["code"] == NO_TURN and "No squall episode" in error["message"]


async def test_an_unknown_or_stale_token_is_refused_at_initialize_with_404() -> None:
    runtime: FakeRuntime | None = FakeRuntime()
    async with open_mcp_hub() as hub, httpx2.AsyncClient() as http:
        assert runtime is not None
        async with hub.serve(runtime) as url:
            assert (await http.post(url, json=INITIALIZE, headers=HEADERS)).status_code == 200
        unknown = f"{hub.base_url}/mcp/not-a-token"
        _refused_as_no_episode(await http.post(unknown, json=INITIALIZE, headers=HEADERS))
        _refused_as_no_episode(await http.get(unknown, headers={"accept": "text/event-stream"}))
        _refused_as_no_episode(await http.delete(unknown))
        _refused_as_no_episode(await http.post(unknown, json=[INITIALIZE], headers=HEADERS))
        for mode in ("legacy", "auto"):  # the SDK's client fails to connect, with squall's error
            with pytest.raises(ExceptionGroup) as failed:
                async with Client(unknown, mode=mode):  # type: ignore[arg-type]
                    pytest.fail("connected to no episode")
            assert failed.group_contains(MCPError, match="No squall episode", depth=None)
        runtime = None  # the episode ended: its runtime is gone, and its token with it
        gc.collect()
        _refused_as_no_episode(await http.post(url, json=INITIALIZE, headers=HEADERS))


@pytest.mark.parametrize("header", [None, "2025-03-26", "2024-11-05"])
async def test_a_batch_under_2025_03_26_is_answered_member_by_member(header: str | None) -> None:
    runtime = FakeRuntime()
    headers = HEADERS | ({"mcp-protocol-version": header} if header else {})
    batch = [
        {"jsonrpc": "2.0", "id": "list", "method": "tools/list"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        _call(7, "lookup", 1),
        _call(8, "act", 2),
        "not a message",
    ]
    async with open_mcp_hub() as hub, hub.serve(runtime) as url, httpx2.AsyncClient() as http:
        response = await http.post(url, content=json.dumps(batch), headers=headers)
        only_notifications = await http.post(url, json=batch[1:2], headers=headers)
        empty = await http.post(url, json=[], headers=headers)
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
    listed, looked, acted, invalid = response.json()  # the notification has no answer
    assert listed["id"] == "list" and [t["name"] for t in listed["result"]["tools"]] == ["lookup", "act"]
    assert looked["id"] == 7 and looked["result"]["structuredContent"] == {"echo": "lookup", "x": 1, "owner": "episode"}
    assert acted["id"] == 8 and not acted["result"]["isError"]
    assert invalid == {"jsonrpc": "2.0", "id": None, "error": invalid["error"]} and invalid["error"]["code"] == -32600
    assert [(c.name, c.arguments, step) for c, step in runtime.calls] == [("lookup", {"x": 1}, 1), ("act", {"x": 2}, 2)]
    assert only_notifications.status_code == 202 and only_notifications.content == b""
    assert empty.status_code == 400 and empty.json()["error"]["code"] == -32600


@pytest.mark.parametrize("header", ["2025-06-18", "2025-11-25", "2026-07-28"])
async def test_a_batch_after_2025_03_26_is_refused_with_a_json_rpc_error(header: str) -> None:
    runtime = FakeRuntime()
    async with open_mcp_hub() as hub, hub.serve(runtime) as url, httpx2.AsyncClient() as http:
        headers = HEADERS | {"mcp-protocol-version": header}
        response = await http.post(url, json=[_call(1, "lookup", 1)], headers=headers)
    assert response.status_code == 400 and response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["jsonrpc"] == "2.0" and body["id"] is None and body["error"]["code"] == -32600
    assert "batches" in body["error"]["message"] and "validation" not in response.text.lower()
    assert runtime.calls == []


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_server_info_names_squalls_version(mode: Any) -> None:
    async with open_mcp_hub() as hub, hub.serve(FakeRuntime()) as url, Client(url, mode=mode) as client:
        assert client.server_info is not None and client.server_info.name == "squall"
        assert client.server_info.version == version("squall") != ""
