"""``RunSummary`` validates stored summary.json files (this version's and older ones with fewer keys) and writes
them back key for key; the registry is the scoring order and every summary part names a registered judge."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from judges.common.reduction import Reduction
from judges.registry import judge_entries, summaries
from judges.run.run_summary import RunSummary
from sim.config.run_config import RunConfig
from sim.judging.judge_set import build_judges, judge_names
from sim.report.markdown import markdown_summary
from sim.report.terminal import render
from sim.run.rescore import summary_of

STORED = sorted((Path(__file__).parents[2] / "data" / "runs").iterdir())

OLDER: dict[str, Any] = {  # a summary from before the stressor, answer and quality keys existed
    "run_id": "old",
    "episodes": 2,
    "planned_episodes": 3,
    "failed_episodes": 1,
    "scored_episodes": 1,
    "core_api_accuracy": 0.5,
    "core_api_accuracy_ci95": [0.094, 0.906],
    "scored_turns": 2,
    "conversation_success": 0.0,
    "conversation_success_ci95": [0.0, 0.7935],
    "pass_hat_k": {"1": 0.0},
    "terminations": {"completed": 1, "provider_error": 1},
    "failed_episode_ids": ["t2#0"],
    "faults_by_kind": {"provider": 1},
    "error_codes": {"provider:rate_limited": 1},
    "per_task": {"t1": {"trials": 1, "conversation_success": 0.0}},
    "usage": {"requests": 4, "input_tokens": 100, "output_tokens": 20, "cost": 0.0, "working_s": 1.5, "waiting_s": 0},
}


def json_of(summary: RunSummary) -> Any:
    return json.loads(json.dumps(summary.as_dict(), sort_keys=True, default=str))


@pytest.mark.parametrize("run", STORED, ids=[p.name for p in STORED])
def test_a_stored_runs_summary_round_trips_key_for_key(run: Path) -> None:
    written = json_of(summary_of(run, None))
    again = RunSummary.model_validate(written)
    assert json_of(again) == written and list(json_of(again)) == list(written)
    assert set(again.judged) == set(written) - set(RunSummary.model_fields)  # the rest are the judges' keys
    assert again.episodes == written["episodes"] > 0 and again.usage.requests == written["usage"]["requests"]


def test_an_older_summary_with_fewer_keys_validates_and_renders() -> None:
    summary = RunSummary.model_validate(OLDER)
    assert summary.as_dict() == OLDER  # nothing added, nothing lost
    assert summary.failed_episodes == 1 and summary.usage.cached == 0 and summary.stressors is None
    assert summary.judged["core_api_accuracy"] == 0.5
    text = markdown_summary(summary)
    assert "| core API accuracy | 50.0% | [9.4, 90.6] | 2 goals |" in text and "| t1 | 1 | 0.0% |" in text
    out = io.StringIO()
    render(summary, Console(file=out, width=200))
    assert "provider:rate_limited" in out.getvalue() and "2 / 3" in out.getvalue()
    assert "LLM usage: 4 requests" in out.getvalue()


def test_a_summary_key_unknown_to_the_fields_is_a_judges_and_is_kept() -> None:
    summary = RunSummary.model_validate({**OLDER, "some_later_judge": {"rate": 0.25}})
    assert summary.judged["some_later_judge"] == {"rate": 0.25}
    assert summary.as_dict()["some_later_judge"] == {"rate": 0.25}


def test_the_registry_is_the_scoring_order_and_names_each_judge() -> None:
    config = RunConfig.model_validate({"error_judge": "off", "answer_judge": "off"})
    built = build_judges(config)
    unconfigured = [e.name for e in judge_entries() if e.build != "configured"]
    assert [j.name for j in built] == judge_names(config) == unconfigured
    assert judge_names(RunConfig())[: len(built)] == [j.name for j in built]  # configured judges come after
    parts: list[type[Reduction[Any]]] = summaries()
    names = {e.name for e in judge_entries()}
    assert all(part.judge in names for part in parts) and len({p.judge for p in parts}) == len(parts)
