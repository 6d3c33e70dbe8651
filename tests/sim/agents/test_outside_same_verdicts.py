"""Same verdicts from outside as from inside: squall's oracle policy run as an outside agent (behind ``python:`` and
``http:``), reaching its tools only over MCP, makes the same tool calls and gets the same scores as the in-process
``oracle`` — on smart_home and multidomain, unstressed and under the stressors that change the toolkit (a drift
rename, a missing function, tool search), which the outside agent sees only through ``tools/list``.

The oracle reads the gold and no outside agent is sent it: the test hands it over a side channel
(``tests.support.outside_agents.GOLDS``), so what is compared is the MCP hop, not two policies.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.config.run_config import RunConfig
from sim.core import EpisodeResult, Score
from sim.run.runner import execute
from tests.support.outside_agents import agent_service, feeding_golds

LIMIT = 40
"""Tasks per world (multidomain has 320; its first 40 use every stressor compared here)."""
OUTSIDE_ORACLE = "python:tests.support.outside_agents:oracle_over_mcp"


async def run(
    tmp_path: Path, world: str, agent: str, stressors: list[str], name: str
) -> tuple[list[EpisodeResult], list[Score]]:
    settings = {"world": world, "agent": agent, "stressors": stressors, "concurrency": 32, "limit": LIMIT}
    config = RunConfig.model_validate({"out": tmp_path, "run_id": name, **settings})
    store, summary = await execute(config)
    assert summary["failed_episodes"] == 0 and summary["judge_faults"] == 0
    return store.episodes(), store.scores()


def calls(episodes: list[EpisodeResult]) -> dict[str, list[tuple[int, str, dict[str, object]]]]:
    return {
        e.episode_id: [
            (ev.turn, ev.call.name, ev.call.arguments) for ev in e.events if ev.kind == "tool_call" and ev.call
        ]
        for e in episodes
    }


def verdicts(scores: list[Score]) -> dict[tuple[str, str], tuple[float | None, list[float | None]]]:
    return {(s.episode_id, s.judge): (s.value, list(s.per_goal)) for s in scores}


def toolkit_changes(episodes: list[EpisodeResult]) -> int:
    return sum(len(e.goal_tools) for e in episodes) + sum(
        bool(ev.scenarios) for e in episodes for ev in e.events if ev.kind == "tool_result"
    )


@pytest.mark.slow
@pytest.mark.parametrize("world", ["smart_home", "multidomain"])
@pytest.mark.parametrize(
    "stressors", [[], ["drift"], ["missing"], ["search"]], ids=["none", "drift", "missing", "search"]
)
async def test_the_oracle_from_outside_over_mcp_scores_as_the_oracle_inside(
    tmp_path: Path, world: str, stressors: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    inside, inside_scores = await run(tmp_path, world, "oracle", stressors, "inside")
    with feeding_golds(monkeypatch):
        outside, outside_scores = await run(tmp_path, world, OUTSIDE_ORACLE, stressors, "outside")
    assert calls(outside) == calls(inside) and sum(map(len, calls(inside).values())) > 0
    assert verdicts(outside_scores) == verdicts(inside_scores)
    assert [e.termination for e in outside] == [e.termination for e in inside]
    if stressors:
        assert toolkit_changes(inside) > 0  # the stressor did change what the agent could call


@pytest.mark.slow
async def test_the_oracle_behind_http_scores_as_the_oracle_inside_under_drift(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inside, inside_scores = await run(tmp_path, "smart_home", "oracle", ["drift"], "inside")
    async with agent_service() as base:
        with feeding_golds(monkeypatch):
            outside, outside_scores = await run(tmp_path, "smart_home", f"http:{base}/agent", ["drift"], "outside")
    assert calls(outside) == calls(inside)
    assert verdicts(outside_scores) == verdicts(inside_scores)
