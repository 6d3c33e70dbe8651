"""The MCP hub over streamable HTTP, driven by the ``mcp`` SDK's own client against fake runtimes."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from typing import Any

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import ToolListChangedNotification

from sim.mcp import NO_TURN, open_mcp_hub
from tests.sim.mcp.fakes import FakeRuntime, spec

HARNESS_WORDS = ("call_", "scenario", "raw", "gold", "state", "error_code", "fired", "secret")


def _wire(result: Any) -> str:
    return json.dumps(result.model_dump(mode="json", by_alias=True, exclude_none=True))


async def test_tools_and_results_cross_as_mcp_values_without_harness_data() -> None:
    runtime = FakeRuntime(fail={"act"})
    async with open_mcp_hub() as hub, hub.serve(runtime) as url, Client(url) as client:
        assert url.startswith("http://127.0.0.1:") and "/mcp/" in url
        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert listed["lookup"].annotations is not None and listed["lookup"].annotations.read_only_hint is True
        assert listed["act"].annotations is not None and listed["act"].annotations.read_only_hint is False
        assert listed["lookup"].input_schema == {"type": "object", "properties": {"x": {"type": "integer"}}}
        assert listed["lookup"].description == "The lookup function."

        ok = await client.call_tool("lookup", {"x": 7})
        assert not ok.is_error
        assert ok.structured_content == {"echo": "lookup", "x": 7, "owner": "episode"}
        assert [c.type for c in ok.content] == ["text"]
        assert json.loads(ok.content[0].text) == ok.structured_content  # type: ignore[union-attr]

        failed = await client.call_tool("act", {"x": 1})
        assert failed.is_error
        assert failed.structured_content == {"error": "Service unavailable, try later.", "code": "outage"}
        for result in (ok, failed):  # only the payload the agent observes in-process crosses
            wire = json.loads(_wire(result))
            assert set(wire) <= {"content", "structuredContent", "isError", "resultType", "_meta"}
            assert not any(word in json.dumps(wire["content"]) for word in HARNESS_WORDS if word != "error_code")
            assert "call_" not in _wire(result)
    assert [(c.name, c.arguments, step) for c, step in runtime.calls] == [("lookup", {"x": 7}, 1), ("act", {"x": 1}, 2)]


async def test_a_plain_text_result_is_text_only() -> None:
    class TextRuntime(FakeRuntime):
        async def call(self, call: Any, step: int) -> Any:
            result = await super().call(call, step)
            return result.model_copy(update={"content": "plain words"})

    async with open_mcp_hub() as hub, hub.serve(TextRuntime()) as url, Client(url) as client:
        result = await client.call_tool("lookup", {})
    assert result.structured_content is None and result.content[0].text == "plain words"  # type: ignore[union-attr]


async def test_a_renamed_endpoint_and_a_found_function_reach_tools_list_with_list_changed() -> None:
    """Drift renames ``act`` after it is called; a search reveals ``hidden``. The client is told on the call's own
    stream, and its next list shows the new toolkit."""
    runtime = FakeRuntime(rename={"act": "act_v2"}, reveal_after={"lookup": spec("hidden")})
    seen: list[Any] = []

    async def on_message(message: Any) -> None:
        seen.append(message)

    async with open_mcp_hub() as hub, hub.serve(runtime) as url, Client(url, message_handler=on_message) as client:
        assert [t.name for t in (await client.list_tools()).tools] == ["lookup", "act"]
        await client.call_tool("act", {"x": 1})
        assert [type(m) for m in seen] == [ToolListChangedNotification]
        assert [t.name for t in (await client.list_tools()).tools] == ["lookup", "act_v2"]
        await client.call_tool("lookup", {})
        assert len(seen) == 2
        assert [t.name for t in (await client.list_tools()).tools] == ["lookup", "act_v2", "hidden"]
        await client.call_tool("lookup", {})
        assert len(seen) == 2  # nothing changed: nothing said
        stale = await client.call_tool("act", {})  # the old name goes to the runtime, which refuses it
        assert stale.is_error and "Unknown function 'act'" in stale.content[0].text  # type: ignore[union-attr]


async def test_handshake_era_clients_are_served_too() -> None:
    runtime = FakeRuntime(rename={"act": "act_v2"})
    seen: list[Any] = []

    async def on_message(message: Any) -> None:
        seen.append(message)

    async with (
        open_mcp_hub() as hub,
        hub.serve(runtime) as url,
        Client(url, mode="legacy", message_handler=on_message) as client,
    ):
        assert client.server_capabilities.tools is not None and client.server_capabilities.tools.list_changed
        await client.list_tools()
        assert not (await client.call_tool("act", {"x": 2})).is_error
        assert any(isinstance(m, ToolListChangedNotification) for m in seen)
        assert [t.name for t in (await client.list_tools()).tools] == ["lookup", "act_v2"]


async def test_a_function_missing_in_one_turn_and_back_in_the_next_is_announced_to_listeners() -> None:
    """Between turns the user's goal may change the toolkit: a client that keeps its connection and listens
    (``subscriptions/listen``) hears of it; every client sees it in ``tools/list``."""
    runtime = FakeRuntime(tools=(spec("lookup", read_only=True),))
    async with open_mcp_hub() as hub:
        async with hub.serve(runtime) as url, Client(url) as client:
            assert [t.name for t in (await client.list_tools()).tools] == ["lookup"]
        runtime.turn, runtime.tools = 1, (spec("lookup", read_only=True), spec("act"))
        async with (
            Client(url) as client,
            client.listen(tools_list_changed=True) as events,
            hub.serve(runtime) as again,
        ):
            assert again == url  # one URL for the whole episode
            event = await asyncio.wait_for(anext(events), timeout=30)
            assert type(event).__name__ == "ToolsListChanged"
            assert [t.name for t in (await client.list_tools()).tools] == ["lookup", "act"]


async def test_calls_past_the_step_limit_are_refused_and_recorded_once() -> None:
    runtime = FakeRuntime()
    async with open_mcp_hub() as hub:
        async with hub.serve(runtime, max_steps=2) as url, Client(url) as client:
            for _ in range(2):
                assert not (await client.call_tool("lookup", {})).is_error
            for _ in range(2):
                refused = await client.call_tool("lookup", {})
                assert refused.is_error and "Step limit" in refused.content[0].text  # type: ignore[union-attr]
        assert len(runtime.calls) == 2
        assert [(kind, code, step) for kind, code, _, step in runtime.faults] == [("agent", "agent:step_limit", 3)]
        async with hub.serve(runtime, max_steps=2) as url, Client(url) as client:  # a new turn, a new budget
            assert not (await client.call_tool("lookup", {})).is_error


async def test_requests_outside_a_turn_get_a_clear_error() -> None:
    runtime = FakeRuntime()
    async with open_mcp_hub() as hub:
        async with hub.serve(runtime) as url:
            pass
        async with Client(url) as client:
            with pytest.raises(MCPError) as outside:
                await client.call_tool("lookup", {})
            assert outside.value.code == NO_TURN and "No turn in progress" in outside.value.message
            with pytest.raises(MCPError):
                await client.list_tools()
    assert runtime.calls == []  # a URL that names no episode is refused at once: test_hub_gate


async def test_each_runtime_keeps_its_own_url_and_one_turn_at_a_time() -> None:
    first, second = FakeRuntime(), FakeRuntime()
    async with open_mcp_hub() as hub:
        async with hub.serve(first) as a1:
            with pytest.raises(RuntimeError, match="already being served"):
                async with hub.serve(first):
                    pass
        async with hub.serve(first) as a2, hub.serve(second) as b:
            assert a1 == a2 and a1 != b


async def test_a_runtime_failure_is_hidden_from_the_agent_and_raised_when_the_turn_ends() -> None:
    runtime = FakeRuntime(raise_on={"act"})
    async with open_mcp_hub() as hub:
        with pytest.raises(RuntimeError, match="world crashed"):
            async with hub.serve(runtime) as url, Client(url) as client:
                with pytest.raises(MCPError) as crashed:
                    await client.call_tool("act", {})
                assert "secret" not in crashed.value.message and "could not run this call" in crashed.value.message


@pytest.mark.slow
async def test_a_hundred_concurrent_episodes_stay_apart() -> None:
    runtimes = [FakeRuntime(label=f"ep{i}", tools=(spec(f"tool_{i}"), spec("shared"))) for i in range(100)]

    async def episode(i: int, runtime: FakeRuntime, hub: Any, http: Any) -> None:
        async with (
            hub.serve(runtime, max_steps=10) as url,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            names = [t.name for t in (await client.list_tools()).tools]
            assert names == [f"tool_{i}", "shared"]
            for name in (f"tool_{i}", "shared", f"tool_{(i + 1) % 100}"):
                result = await client.call_tool(name, {"x": i})
                if name == f"tool_{(i + 1) % 100}":  # another episode's tool is unknown here
                    assert result.is_error
                else:
                    assert result.structured_content == {"echo": name, "x": i, "owner": f"ep{i}"}

    # One HTTP client for all (as a real agent service would keep): each new one loads the CA bundle, ~0.1 s of CPU.
    async with open_mcp_hub() as hub, create_mcp_http_client() as http:
        await asyncio.gather(*(episode(i, r, hub, http) for i, r in enumerate(runtimes)))
    for i, runtime in enumerate(runtimes):
        assert [(c.name, c.arguments["x"]) for c, _ in runtime.calls] == [
            (f"tool_{i}", i),
            ("shared", i),
            (f"tool_{(i + 1) % 100}", i),
        ]


async def test_the_hub_binds_loopback_only_and_leaves_nothing_behind() -> None:
    with pytest.raises(ValueError, match="loopback"):
        async with open_mcp_hub(host="0.0.0.0"):
            pass
    tasks_before = asyncio.all_tasks()
    threads_before = threading.active_count()
    runtime = FakeRuntime()
    async with open_mcp_hub() as hub:
        port = int(hub.base_url.rsplit(":", 1)[1])
        async with hub.serve(runtime) as url, Client(url) as client:
            await client.call_tool("lookup", {})
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=5):
        pass
    await asyncio.sleep(0)
    assert {t for t in asyncio.all_tasks() if not t.done()} - tasks_before == set()
    assert threading.active_count() == threads_before


async def test_a_call_still_running_when_the_turn_ends_is_cancelled_before_the_loop_moves_on() -> None:
    started = asyncio.Event()

    class Blocking(FakeRuntime):
        async def call(self, call: Any, step: int) -> Any:
            self.calls.append((call, step))
            started.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.faults.append(("test", "cancelled", "", step))
                raise

    runtime = Blocking()
    async with open_mcp_hub() as hub:
        async with hub.serve(runtime) as url:
            pass
        async with Client(url) as client:
            async with hub.serve(runtime):
                pending = asyncio.create_task(client.call_tool("lookup", {}))
                await started.wait()
            assert runtime.faults == [("test", "cancelled", "", 1)]  # done by the time serve's exit returned
            with pytest.raises(MCPError, match="turn ended"):
                await pending
