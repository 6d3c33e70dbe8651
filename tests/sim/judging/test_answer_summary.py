"""The summary's completion, call F1, error categories, stuck and out-of-budget numbers, streamed, and the report."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from judges.answers.completion import Completion
from judges.calls.arg_match import ArgMatcher
from judges.calls.call_f1 import CallF1
from judges.run.metrics import summarize
from sim.core import Event, Goal, GoldCall, ToolSpec, UserIntent
from sim.report.terminal import render
from tests.support import traces
from tests.support.episodes import both, ep, score

ANSWER = Goal(user=UserIntent(explicit="how many?"), gold=[], answer=[{"count(*)": 3}], gold_answer="3")


def with_reply(e: Any, reply: str, turn: int = 0) -> Any:
    events = [*e.events, Event(kind="agent_message", turn=turn, content=reply)]
    return e.model_copy(update={"events": events, "turns_played": turn + 1})


def test_no_answer_turn_is_na_and_budgets_count_failed_episodes_too() -> None:
    a = ep("a", 0, [ANSWER.model_copy(update={"answer": None})])
    limit = Event(kind="error", turn=0, fault="agent", code="agent:step_limit", content="")
    b = ep("b", 0, [ANSWER], events=[limit], termination="turn_limit")
    c = ep("c", 0, [ANSWER], termination="timeout")
    summary = both([a, b, c], [score(a, "completion", None)])
    assert summary["completion"] is None and summary["completion_ci95"] is None and summary["completion_turns"] == 0
    assert summary["out_of_budget"] == {"episodes": 2, "step_limit": 1, "turn_limit": 1, "timeout": 1}
    assert summary["call_f1"]["intent"] == {"precision": None, "recall": None, "f1": None}


async def test_judged_episodes_sum_into_the_summary_and_failed_ones_never_do() -> None:
    right = with_reply(ep("t1", 0, [ANSWER]), "There are 3.")
    wrong = with_reply(ep("t2", 0, [ANSWER]), "There are 4.")
    failed = with_reply(ep("t3", 0, [ANSWER], termination="provider_error"), "3")
    episodes = [right, wrong, failed]
    scores = [await Completion().score(e) for e in episodes]
    summary = both(episodes, scores)
    assert (summary["completion"], summary["completion_turns"], summary["completion_episodes"]) == (0.5, 2, 2)
    assert summary["completion_ci95"] is not None


async def test_call_f1_counts_categories_and_stuck_turns_add_up() -> None:
    specs = [ToolSpec(name="set_power", description="")]
    on = GoldCall(name="set_power", arguments={"device": "lamp", "on": True})
    good = traces.episode([traces.turn([on])], [[("set_power", on.arguments, "success")]], specs)
    bad = traces.episode([traces.turn([on])], [[("set_power", {"device": "lamp", "on": 1}, "failed")] * 3], specs)
    bad = bad.model_copy(update={"episode_id": "t#1", "trial": 1})
    scores = [await CallF1(ArgMatcher()).score(e) for e in (good, bad)]
    summary = both([good, bad], scores)
    assert summary["call_f1"]["counts"] == {"intent": [1, 1, 2], "slot": [2, 2, 4]}
    assert summary["call_f1"]["intent"] == {"precision": 1.0, "recall": 0.5, "f1": 0.6667}
    assert summary["error_categories"]["refused_call"] == 1 and sum(summary["error_categories"].values()) == 1
    assert summary["stuck"] == {
        "episodes": 1,
        "turns": 1,
        "by_reason": {"repeated_failure": 1, "repeated_call": 0, "no_progress": 0},
    }
    console = Console(record=True, width=160)
    render(summarize([good, bad], scores), console)
    text = console.export_text()
    for row in ("intent F1", "slot F1", "stuck episodes", "error categories", "refused_call"):
        assert row in text


async def test_the_report_shows_completion_when_present() -> None:
    right = with_reply(ep("t1", 0, [ANSWER]), "3")
    console = Console(record=True, width=160)
    render(summarize([right], [await Completion().score(right)]), console)
    assert "completion (exact answer)" in console.export_text()
    console = Console(record=True, width=160)
    render(summarize([ep("t1", 0, [Goal(user=UserIntent(explicit="x"), gold=[])])], []), console)
    text = console.export_text()
    assert "│ completion" not in text  # no row: named once in the note of judges with nothing to judge
    assert "nothing here for them to judge" in text and "completion (exact answer)" in text
