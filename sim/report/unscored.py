"""Episodes that could not be scored, named by cause, each cause with what to do about it.

A run's headline, its summary.md and its last line on the terminal say the same thing: how many episodes of how
many were not scored, why (``RunSummary.failed_by_code``: a ``world:`` code, or ``episode:<termination>``), and the
advice that fits that cause. A provider's advice (resume once the endpoint is back) is wrong for a cache miss, and
a crash in squall is a bug to report, not something a re-run fixes.
"""

from __future__ import annotations

from judges.run.run_summary import RunSummary

UNKNOWN_CAUSE = "episode:failed"
"""Summaries written before causes were counted: the failures are known, their causes not."""


def advice(cause: str, run_id: str) -> str:
    """What to do about the episodes that ``cause`` left unscored. Only provider faults are played again by
    ``--resume`` (``sim.store.superseded``): the others need their cause fixed and a new run."""
    if cause == "world:not_cached":
        return (
            "a call on the task's gold path had no cached response and the run may not simulate one: warm the cache "
            "(`squall worlds warm WORLD`) or run again with --cache read-write and a world model"
        )
    if cause == "world:simulation_failed":
        return (
            "the world's simulator model gave no usable answer: `squall worlds warm WORLD` asks it again (or set "
            "another world model), then run again"
        )
    if cause == "episode:provider_error":
        return (
            f"a model endpoint failed after every retry: once it is back, --resume --run-id {run_id} plays them again"
        )
    if cause == "episode:user_error":
        return "the user simulator failed (its model or its script): fix it and run again"
    if cause == "episode:timeout":
        return "the episodes ran out of time: raise --episode-timeout and run again"
    if cause == "episode:cancelled":
        return "the run was stopped before they finished: run again"
    if cause == "episode:harness_error":
        return "a crash in squall or the world: a bug; please report it with the episode's trace (episodes.jsonl)"
    return "see the episodes' error events in episodes.jsonl"


def causes(summary: RunSummary) -> dict[str, int]:
    """Unscored episodes per cause, most first (one unnamed cause for a summary from before causes were kept)."""
    if summary.failed_by_code:
        return dict(sorted(summary.failed_by_code.items(), key=lambda kv: (-kv[1], kv[0])))
    return {UNKNOWN_CAUSE: summary.failed_episodes} if summary.failed_episodes else {}


def causes_text(summary: RunSummary) -> str:
    """``world:not_cached 2, episode:provider_error 1``."""
    return ", ".join(f"{cause} {n}" for cause, n in causes(summary).items())


def unscored_line(summary: RunSummary) -> str:
    """``2 of 3 episodes not scored: world:not_cached 2``; empty when every episode was scored."""
    if not summary.failed_episodes:
        return ""
    return f"{summary.failed_episodes} of {summary.episodes} episodes not scored: {causes_text(summary)}"


def causes_and_advice(summary: RunSummary, run_id: str) -> str:
    """Each cause with its count and advice: ``world:not_cached 2: ...; episode:provider_error 1: ...``."""
    found = causes(summary)
    if not found or UNKNOWN_CAUSE in found:
        return advice(UNKNOWN_CAUSE, run_id)
    return "; ".join(f"{cause} {n}: {advice(cause, run_id)}" for cause, n in found.items())


def unscored_notes(summary: RunSummary) -> list[str]:
    """The line, then the advice for each cause, for the headline's notes."""
    line = unscored_line(summary)
    if not line:
        return []
    run_id = summary.run_id or "RUN_ID"
    return [line, *(f"{cause}: {advice(cause, run_id)}" for cause in causes(summary) if cause != UNKNOWN_CAUSE)]
