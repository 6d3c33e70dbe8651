"""An episode's store line with its tool specs spliced in is json_line's, byte for byte."""

from __future__ import annotations

from typing import Any

import pytest

import sim.bench.episode_cpu as bench
from sim.core import EpisodeResult, Event, ToolSpec
from sim.core.text_check import json_line
from sim.store.episode_json import episode_json
from sim.store.writer import store_line
from tests.support.episodes import result


def _played(monkeypatch: pytest.MonkeyPatch, *argv: str) -> list[EpisodeResult]:
    """Real episodes, as the in-process bench plays them (timings included)."""
    results: list[EpisodeResult] = []
    real = bench.run_episode

    async def keep(episode: Any, env: Any) -> EpisodeResult:
        played = await real(episode, env)
        results.append(played)
        return played

    monkeypatch.setattr(bench, "run_episode", keep)
    assert bench.main(list(argv)) == 0
    return results


@pytest.mark.parametrize(
    "argv",
    [
        ("--agent", "oracle", "--episodes", "6"),
        ("--agent", "mock", "--episodes", "6"),
        ("--agent", "naive", "--episodes", "4", "--stressors", "all"),  # expanded and rewritten toolkits
        ("--world", "multidomain", "--agent", "oracle", "--episodes", "3"),
    ],
)
def test_played_episodes_encode_alike(monkeypatch: pytest.MonkeyPatch, argv: tuple[str, ...]) -> None:
    results = _played(monkeypatch, *argv)
    assert results and any(r.tools for r in results)
    for _ in range(2):  # the second time from the kept specs
        for played in results:
            assert episode_json(played) == json_line(played)
            assert store_line(played) == json_line(played).encode("utf-8") + b"\n"


def test_specs_shared_between_episodes_encode_alike() -> None:
    spec = ToolSpec(name="f", description="d", parameters={"type": "object", "properties": {"x": {"type": "string"}}})
    first = result(1).model_copy(update={"tools": [spec]})
    second = result(2).model_copy(update={"tools": [spec, spec], "events": [Event(kind="user_message", turn=0)]})
    for record in (first, second, result(3)):  # result(3): no tools at all
        assert episode_json(record) == json_line(record)


def test_lone_surrogate_falls_back_to_the_scrubbed_line() -> None:
    spec = ToolSpec(name="f", description="bad \ud800 text")
    record = result(1).model_copy(update={"tools": [spec]})
    line = episode_json(record)
    assert line == json_line(record)
    assert "\ufffd" in line
    message = result(2).model_copy(update={"instructions": "bad \udfff"})
    assert episode_json(message) == json_line(message)
