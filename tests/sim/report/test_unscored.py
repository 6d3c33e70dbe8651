"""Unscored episodes are counted by cause in summary.json, the headline and the run's last line, each cause with
its own advice: a provider's (resume once the endpoint is back) only for provider faults."""

from __future__ import annotations

from typing import Any

from judges.run.metrics import EpisodeOutline, summarize
from sim.cli.exit_status import EXIT_TOO_MANY_FAILED, run_exit_status
from sim.core.trace import CACHE_MISS_CODE
from sim.report.sections import build_sections


def outline(episode: str, termination: str = "completed", *codes: str) -> EpisodeOutline:
    events: list[dict[str, Any]] = [
        {"kind": "tool_result", "result": {"status": "unavailable", "error_code": code}} for code in codes
    ]
    return EpisodeOutline.model_validate(
        {"episode_id": episode, "task_id": episode, "trial": 0, "termination": termination, "events": events}
    )


EPISODES = [
    outline("a", "completed", "world:not_cached"),
    outline("b", "completed", "world:not_cached"),
    outline("c", "provider_error"),
    outline("d", "completed", CACHE_MISS_CODE, CACHE_MISS_CODE),  # scored: the agent read two 503s
    outline("e", "harness_error"),
]


def test_the_summary_counts_unscored_episodes_by_cause_and_cache_misses() -> None:
    summary = summarize(EPISODES, [])
    assert summary.failed_by_code == {"world:not_cached": 2, "episode:provider_error": 1, "episode:harness_error": 1}
    assert (summary.failed_episodes, summary.scored_episodes, summary.cache_misses) == (4, 1, 2)
    assert summary.as_dict()["failed_by_code"]["world:not_cached"] == 2
    clean = summarize([outline("x")], [])
    assert "failed_by_code" not in clean.as_dict() and "cache_misses" not in clean.as_dict()


def test_headline_and_last_line_name_each_cause_with_its_advice() -> None:
    summary = summarize(EPISODES, []).model_copy(update={"run_id": "r1"})
    headline = build_sections(summary)[0]
    notes = " ".join(headline.notes)
    assert "4 of 5 episodes not scored: world:not_cached 2, episode:harness_error 1, episode:provider_error 1" in notes
    assert "squall worlds warm" in notes and "report it" in notes
    assert "once it is back, --resume --run-id r1" in notes  # the provider's advice, for its one episode
    rows = {row[0]: row for row in headline.rows}
    assert rows["cache misses"][1] == "2"
    code, message = run_exit_status(summary, 0.5, {}, "r1")
    assert code == EXIT_TOO_MANY_FAILED and "world:not_cached 2" in message and "squall worlds warm" in message


def test_a_cache_miss_alone_gets_no_provider_advice() -> None:
    summary = summarize([outline("a", "completed", "world:not_cached")], [])
    code, message = run_exit_status(summary, None, {}, "r2")
    assert code == EXIT_TOO_MANY_FAILED
    assert message.startswith("every episode failed (1 of 1): nothing was scored; world:not_cached 1: a call on the")
    assert "warm the cache (`squall worlds warm WORLD`)" in message
    assert "endpoint" not in message and "--resume" not in message
