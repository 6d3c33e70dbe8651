"""An ended episode is freed by reference counting alone: nothing of it is left in a reference cycle.

Why it matters: an episode left in a cycle (a closure over the runtime it is stored on, an exception kept in a local
of the frame its traceback holds) lives on until the cyclic collector runs, and every young collection walks it
again. Measured at 100 episodes in flight, the collector's passes took ~9% of the harness's CPU (freeing included)
and the resident size grew ~80 KB per finished episode. The runs here keep the collector off, then collect with
``DEBUG_SAVEALL`` and look for episode-scoped objects among what only the collector could free.
"""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel

from sim.config.run_config import RunConfig
from sim.core import ChatMessage, ModelRequest
from sim.llm.transports.base import TransportError
from sim.llm.transports.pydantic_ai import PydanticAITransport
from sim.run.event_loop import run
from sim.run.runner import execute
from tests.support.mockllm_server import mock_llm_server

T = TypeVar("T")
EPISODE_SCOPED = {
    "EpisodeRuntime", "EpisodeLLM", "EventRecorder", "Event", "ChatMessage", "ToolResult", "ToolCall", "ModelCall",
    "HomeState", "SmartHomeWorld", "TransportError", "MessageMemo",
}  # fmt: skip
FAULTS = {
    "policy": {"kind": "first_tool"},
    "seed": 3,
    "faults": [  # every retry path: a 429, a 5xx, a hang past the request timeout, a bad body
        {"kind": "rate_limit", "probability": 0.1, "retry_after_s": 0.05},
        {"kind": "server_error", "probability": 0.1, "status": 503},
        {"kind": "timeout", "probability": 0.04, "hang_s": 2.0},
        {"kind": "malformed", "probability": 0.06},
    ],
}


@pytest.fixture(scope="module")
def faulty_endpoint() -> Iterator[str]:
    with mock_llm_server(FAULTS) as server:
        yield server.url


def _run_then_cycles(main: Coroutine[Any, Any, T]) -> tuple[T, Counter[str]]:
    """``main``'s result, and the class names of what only the cyclic collector could free after it."""
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        result = run(main)
        gc.collect()
        return result, Counter(type(o).__name__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def _cyclic_leftovers(tmp_path: Path, **settings: Any) -> tuple[int, Counter[str]]:
    config = RunConfig(
        out=tmp_path, run_id="r", preflight=False, error_judge="off", request_timeout_s=0.5, **settings
    )  # the embedding judge is off: its first load leaves import-time cycles that say nothing of episodes
    (_, summary), left = _run_then_cycles(execute(config))
    return summary.episodes, left


@pytest.mark.slow
@pytest.mark.parametrize(
    "agent",
    [
        "openai-chat:mock-model@{url}",  # the native agent over squall's own HTTP client
        "text:openai-chat:mock-model@{url}",  # the text agent, its calls parsed from prose
        "test",  # pydantic-ai's TestModel through the pydantic-ai transport (no endpoint)
    ],
)
def test_episodes_of_every_agent_kind_leave_no_cycles(tmp_path: Path, faulty_endpoint: str, agent: str) -> None:
    episodes, left = _cyclic_leftovers(
        tmp_path, agent=agent.format(url=faulty_endpoint), limit=5, trials=2, concurrency=5
    )
    assert episodes == 10
    assert not {name: n for name, n in left.items() if name in EPISODE_SCOPED}


@pytest.mark.slow
def test_episodes_under_every_stressor_leave_no_cycles(tmp_path: Path) -> None:
    episodes, left = _cyclic_leftovers(tmp_path, agent="naive", stressors=["all"], limit=5, trials=2, concurrency=4)
    assert episodes == 10
    assert not {name: n for name, n in left.items() if name in EPISODE_SCOPED}


def test_a_provider_fault_through_pydantic_ai_leaves_no_cycle() -> None:
    """The pydantic-ai transport's classified error is raised, not kept in the frame its traceback holds."""

    def overloaded(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise ModelHTTPError(503, "m", "overloaded")

    async def three_faults() -> list[str]:
        transport = PydanticAITransport(FunctionModel(overloaded))
        request = ModelRequest(role="agent", model="function", messages=(ChatMessage(role="user", content="hi"),))
        codes = []
        for _ in range(3):
            try:
                await transport.send(request)
            except TransportError as error:
                codes.append(error.code)
        return codes

    codes, left = _run_then_cycles(three_faults())
    assert codes == ["provider:http_503"] * 3
    assert left["TransportError"] == 0 and left["ModelRequest"] == 0 and left["ChatMessage"] == 0


@pytest.mark.slow
def test_the_check_sees_an_episode_left_in_a_cycle() -> None:
    """The check itself can fail: an episode's runtime tied into a cycle is found among the leftovers."""
    kept: list[object] = []

    class EpisodeRuntime:  # the name the check looks for
        def __init__(self) -> None:
            self.own = self

    async def one() -> None:
        kept.append(EpisodeRuntime())
        kept.clear()  # unreachable now, but only the collector can free it

    _, left = _run_then_cycles(one())
    assert left["EpisodeRuntime"] == 1
