"""Summary metrics of issue 9: per-trial spread, solvable pass rate, give-up, recovery after a failure, failure
stages; the same from stored outlines as from full episodes, and in the report."""

from __future__ import annotations

import math
from typing import Any

import pytest
from rich.console import Console

from judges.common.stats import mean_sd
from judges.run.metrics import summarize
from sim.core import EpisodeResult, Score
from sim.report.terminal import render
from tests.support.episodes import DECLINE, SOLVE, both, ep, result_event, score


def test_mean_and_sample_sd() -> None:
    assert mean_sd([]) == (None, None) and mean_sd([None]) == (None, None)
    assert mean_sd([0.5, None]) == (0.5, None)  # one trial: no spread
    mean, sd = mean_sd([0.5, 1.0, 0.0])
    assert mean == 0.5 and sd is not None and math.isclose(sd, 0.5)


def test_per_trial_rates_and_their_spread() -> None:
    episodes, scores = [], []
    for trial, outcomes in enumerate([(1.0, 1.0), (1.0, 0.0), (0.0, 0.0)]):
        for task, success in zip(("a", "b"), outcomes, strict=True):
            e = ep(task, trial, [SOLVE, SOLVE])
            episodes.append(e)
            scores.append(score(e, "conversation_success", success))
            scores.append(score(e, "core_api_accuracy", success, per_goal=[success, 1.0]))
    failed = ep("c", 0, [SOLVE], termination="provider_error")  # never in a trial's rate
    episodes.append(failed)
    summary = both(episodes, scores)
    trials = summary["over_trials"]
    assert trials["trials"] == [0, 1, 2]
    assert trials["conversation_success"] == {"per_trial": [1.0, 0.5, 0.0], "mean": 0.5, "sd": 0.5}
    assert trials["core_api_accuracy"]["per_trial"] == [1.0, 0.75, 0.5]
    assert trials["core_api_accuracy"]["mean"] == 0.75 and trials["core_api_accuracy"]["sd"] == 0.25
    one = both(episodes[:2], scores[:4])["over_trials"]
    assert one["conversation_success"] == {"per_trial": [1.0], "mean": 1.0, "sd": None}


def test_solvable_pass_rate_leaves_out_tasks_that_test_giving_up() -> None:
    solvable = [ep("a", 0, [SOLVE]), ep("b", 0, [SOLVE, SOLVE]), ep("c", 0, [SOLVE])]
    impossible = ep("d", 0, [SOLVE, DECLINE])
    values = [1.0, 1.0, 0.0, 0.0]
    scores = [score(e, "conversation_success", v) for e, v in zip([*solvable, impossible], values, strict=True)]
    summary = both([*solvable, impossible], scores)
    assert summary["conversation_success"] == 0.5
    assert summary["solvable_pass_rate"] == round(2 / 3, 4) and summary["solvable_episodes"] == 3
    assert summary["solvable_pass_rate_ci95"] is not None


def decline_score(e: EpisodeResult, per_goal: list[float | None], to_give_up: int | None, **details: Any) -> Score:
    values = [v for v in per_goal if v is not None]
    return score(
        e,
        "decline",
        sum(values) / len(values) if values else None,
        per_goal=per_goal,
        details={"turns_to_give_up": to_give_up, "looped_turns": [], "invented_calls": [], **details},
    )


def test_give_up_rate_turns_to_give_up_and_looping() -> None:
    turns = [SOLVE, DECLINE, DECLINE]
    at_once, late, never, solvable = ep("a", 0, turns), ep("b", 0, turns), ep("c", 0, turns), ep("d", 0, [SOLVE])
    faulted = ep("e", 0, turns)
    scores = [
        decline_score(at_once, [None, 1.0, 1.0], 1),
        decline_score(late, [None, 0.0, 1.0], 3, looped_turns=[0, 1], invented_calls=[1]),  # turn 0: not a decline
        decline_score(never, [None, 0.0, 0.0], None, looped_turns=[1, 2]),
        decline_score(solvable, [None], None),  # no decline turn: value None, outside every rate
        score(faulted, "decline", None, errors=["judge:RuntimeError"]),
    ]
    give_up = both([at_once, late, never, solvable, faulted], scores)["give_up"]
    assert give_up["decline_turns"] == 6 and give_up["rate"] == 0.5 and give_up["ci95"] is not None
    assert give_up["decline_episodes"] == 3 and give_up["gave_up_episodes"] == 2 and give_up["never_gave_up"] == 1
    assert give_up["mean_turns_to_give_up"] == 2.0
    assert give_up["looping_rate"] == 0.5 and give_up["invented_call_rate"] == round(1 / 6, 4)


def test_recovery_counts_scored_turns_that_saw_a_failed_result() -> None:
    events = [
        result_event(0, "unavailable"),  # turn 0: failed, then right
        result_event(0, "success"),
        result_event(1, "failed"),  # turn 1: failed, still wrong
        result_event(2, "success"),  # turn 2: no failure
        result_event(3, "failed", replayed=True),  # replayed gold: not the agent's call
        result_event(4, "timeout"),  # turn 4: not scored by core API accuracy
    ]
    e = ep("a", 0, [SOLVE] * 5, events)
    core = score(e, "core_api_accuracy", 0.5, per_goal=[1.0, 0.0, 1.0, 0.0, None])
    recovery = both([e], [core])["recovery"]
    assert recovery == {"rate": 0.5, "ci95": recovery["ci95"], "turns_after_failure": 2}
    failed = ep("b", 0, [SOLVE], [result_event(0, "failed")], termination="harness_error")
    assert both([failed], [score(failed, "core_api_accuracy", 0.0, per_goal=[0.0])])["recovery"]["rate"] is None


def test_failure_stages_are_counted_from_the_newest_verdict() -> None:
    a, b = ep("a", 0, [SOLVE] * 3), ep("b", 0, [SOLVE] * 2)
    scores = [
        score(a, "failure_stage", None, details={"stages": ["search", "search", None]}),
        score(a, "failure_stage", None, details={"stages": ["search", None, "chaining"]}),  # a re-score replaces
        score(b, "failure_stage", None, details={"stages": ["tool_use", "not_played"]}),
    ]
    stages = both([a, b], scores)["failure_stages"]
    assert stages == {
        "search": 1,
        "identification": 0,
        "chaining": 1,
        "tool_use": 1,
        "execution": 0,
        "not_played": 1,
    }


@pytest.fixture
def rendered() -> str:
    episodes, scores = [], []
    for trial in range(2):
        e = ep("a", trial, [SOLVE, DECLINE], [result_event(0, "failed")])
        episodes.append(e)
        scores += [
            score(e, "conversation_success", 1.0),
            score(e, "core_api_accuracy", 1.0, per_goal=[1.0, None]),
            decline_score(e, [None, 1.0], 1),
            score(e, "failure_stage", None, details={"stages": ["chaining", None]}),
        ]
    console = Console(record=True, width=160)
    render(summarize(episodes, scores), console)
    return console.export_text()


def test_the_report_shows_each_metric_with_its_denominator(rendered: str) -> None:
    for text in (
        "conversation success, mean ± sd",
        "100.0% ± 0.0",
        "2 trials",
        "solvable pass rate",
        "0 episodes w/o decline turn",
        "give-up rate",
        "2 decline turns",
        "turns to give up, mean",
        "1.00",
        "looping rate",
        "recovery after a failed call",
        "failure stages (wrong goals)",
        "chaining",
    ):
        assert text in rendered, text


def test_isolated_intervals_do_not_depend_on_the_order_episodes_finished_in() -> None:
    from sim.judging.stressor_summary import _paired

    rows = {f"t{i}": [float(i % 3 == 0), float(i % 2), 1.0] for i in range(12)}
    backwards = dict(reversed(list(rows.items())))
    assert list(rows) != list(backwards)
    assert _paired(rows) == _paired(backwards)
    assert _paired(rows)["retention_ci95"] is not None
