"""Against the embedded model (SmolLM2-135M, toy quality): one cold call is simulated through a real gateway and
cached, whatever the model answered (a valid response, or a classified failure after the retries); the same call
again, from a fresh pack on the same folder, is identical and asks nothing. Skipped when the model is absent."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from sim.config.gateway import build_gateway
from sim.config.run_config import RunConfig
from sim.core import ModelRequest, ModelResponse, ToolCall, WorldContext
from sim.llm.gateway import EpisodeLLM
from sim.llm.local.server import local_model_available
from sim.llm.model_access import open_model
from tests.worlds.simulated.support import pack
from worlds.simulated import simulate
from worlds.simulated.world import SIMULATION_FAILED

_UNAVAILABLE = local_model_available()
pytestmark = [
    pytest.mark.local_model,
    pytest.mark.usefixtures("one_decode_thread"),
    pytest.mark.slow,
    pytest.mark.skipif(_UNAVAILABLE is not None, reason=_UNAVAILABLE or ""),
]


class Counting:
    """The episode's handle, counting the requests that pass."""

    steps = 0

    def __init__(self, inner: EpisodeLLM) -> None:
        self.inner = inner
        self.requests = 0

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.requests += 1
        return await self.inner.complete(request)


async def test_one_cold_call_is_cached_and_replayed_without_a_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(simulate, "ATTEMPTS", 1)  # a small CPU model is slow: one short attempt is enough here
    monkeypatch.setattr(simulate, "MAX_TOKENS", 48)
    gateway = build_gateway(RunConfig(world="ticket_desk"))
    try:
        async with open_model(gateway, "local") as name:
            handle = Counting(EpisodeLLM(gateway, max_steps=1, record=lambda _event: None, clock=time.monotonic))
            call = ToolCall(id="c1", name="getNote", arguments={"noteId": "n-1"})
            first = (
                await pack(tmp_path, model=name)
                .new_world(0, WorldContext(llm=handle, cache_mode="read-write"))
                .call(call)
            )
            assert handle.requests == 1
            assert first.ok or first.error_code == SIMULATION_FAILED  # classified either way, never an exception
            again = (
                await pack(tmp_path, model=name)
                .new_world(0, WorldContext(llm=handle, cache_mode="read-write"))
                .call(call)
            )
            assert again == first and handle.requests == 1
    finally:
        await gateway.aclose()
    assert (tmp_path / "cache" / "getNote.json").is_file()
