"""Which error-handling rater a run gets by default, and the embedding rater's number named a proxy in every report.

No offline rater measured agrees with people well enough to be the default score (README), so a judge model the user
names rates errors; without one the embedding rater still runs, and every report calls its number a proxy."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from judges.common.reduction import EpisodeFacts, RunFacts
from judges.errors.error_handling import EMBEDDING_KAPPA
from judges.errors.error_handling_summary import ErrorHandlingSummary, handling_title
from judges.run.run_summary import RunSummary
from sim.config.resolve import resolve_config
from sim.config.run_config import RunConfig
from sim.core import Score
from sim.judging.judge_set import error_judge_mode, judge_config, uses_judge_model
from sim.report.html import section_html
from sim.report.markdown import markdown_summary
from sim.report.sections import build_sections
from sim.report.terminal import render

PROXY = f"error handling (1-5, embedding proxy, kappa {EMBEDDING_KAPPA:.2f})"


def test_without_a_judge_model_the_default_rater_is_embedding() -> None:
    assert RunConfig().error_judge == "embedding"
    config, _ = resolve_config(None, {"agent": "oracle", "world": "smart_home"})
    assert config.error_judge == "embedding" and not uses_judge_model(config)


def test_a_judge_model_given_anywhere_makes_the_llm_rater_the_default(tmp_path: Path) -> None:
    assert RunConfig(judge_model="openai:gpt-4o-mini").error_judge == "llm"
    given, _ = resolve_config(None, {"agent": "oracle", "world": "smart_home", "judge_model": "openai:gpt-4o-mini"})
    assert given.error_judge == "llm" and uses_judge_model(given)
    assert judge_config(given)["error_judge"] == "llm" and "error_bands" not in judge_config(given)
    toml = tmp_path / "run.toml"
    toml.write_text('agent = "oracle"\nworld = "smart_home"\njudge_model = "local"\n', encoding="utf-8")
    assert resolve_config(toml, {})[0].error_judge == "llm"


def test_a_rater_the_user_chose_is_kept_whatever_the_judge_model() -> None:
    for chosen in ("embedding", "off"):
        config = RunConfig(judge_model="openai:gpt-4o-mini", error_judge=chosen)
        assert config.error_judge == chosen and not uses_judge_model(config)
    # A stored config names its rater: re-scoring with a judge model for another judge keeps it.
    stored = RunConfig().model_dump()
    assert RunConfig.model_validate({**stored, "judge_model": "openai:gpt-4o-mini"}).error_judge == "embedding"


def test_the_default_run_keeps_its_score_set_hash() -> None:
    # The embedding default (or off, without the embed extra) hashes as before: stored runs re-score identically.
    settings = judge_config(RunConfig())
    assert settings["error_judge"] == error_judge_mode(RunConfig()) in ("embedding", "off")
    assert "judge_model" not in settings


def _scores(mode: str, *values: int) -> Score:
    return Score(
        episode_id="e", task_id="t", trial=0, judge="error_handling", value=(sum(values) / len(values) - 1) / 4,
        details={"mode": mode, "scores": {str(g): v for g, v in enumerate(values)}},
    )  # fmt: skip


def _summary(mode: str) -> dict[str, object]:
    part = ErrorHandlingSummary()
    verdict = part.verdict(_scores(mode, 5, 2))
    assert verdict is not None
    part.add(verdict, EpisodeFacts("t", 0, False, 0))
    return part.result(RunFacts(1, (0,)))


def test_the_summary_names_the_rater_that_gave_the_scores() -> None:
    assert _summary("embedding")["error_handling_rater"] == "embedding"
    assert _summary("llm")["error_handling_rater"] == "llm"
    assert _summary("llm")["error_handling_score"] == 3.5  # the numbers themselves are the rater's, unchanged
    assert ErrorHandlingSummary().result(RunFacts(1, ()))["error_handling_rater"] is None


def _reports(summary: RunSummary) -> dict[str, str]:
    out = io.StringIO()
    render(summary, Console(file=out, width=200, color_system=None))
    return {
        "terminal": " ".join(out.getvalue().split()),
        "summary.md": markdown_summary(summary),
        "report.html": section_html(build_sections(summary)[0]),
    }


@pytest.mark.parametrize("mode", ["embedding", "llm"])
def test_every_report_calls_the_embedding_score_a_proxy(mode: str) -> None:
    summary = RunSummary.model_validate({"run_id": "r", "episodes": 1, **_summary(mode)})
    for where, text in _reports(summary).items():
        assert ("embedding proxy" in text) == (mode == "embedding"), where
        if mode == "embedding":
            assert PROXY in text and "--judge-model" in text, where
        else:
            assert "error handling (1-5, llm rater)" in text, where


def test_a_summary_stored_before_the_rater_was_recorded_keeps_the_plain_title() -> None:
    assert handling_title(None) == "error handling (1-5)"
    stored = {k: v for k, v in _summary("embedding").items() if k != "error_handling_rater"}
    text = markdown_summary(RunSummary.model_validate({"run_id": "r", "episodes": 1, **stored}))
    assert "| error handling (1-5) |" in text and "proxy" not in text


def test_calibrate_names_a_judge_model_that_never_answered_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from sim.cli import judges
    from sim.cli.app import app
    from sim.llm.errors import ProviderError

    async def timed_out(*_: object) -> dict[str, object]:
        raise ProviderError("provider:timeout", "no response within 120.0s (gave up after 6 failed attempt(s))")

    monkeypatch.setattr(judges, "_calibrate", timed_out)
    done = CliRunner().invoke(app, ["judges", "calibrate", "--raters", "llm", "--judge-model", "local"])
    assert done.exit_code == 1 and done.exception is not None and not isinstance(done.exception, ProviderError)
    assert "--judge-model local: no response within 120.0s" in " ".join(done.output.split())


def test_calibrate_never_picks_the_embedded_toy_model_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from sim.cli import judges
    from sim.cli.app import app

    seen: list[object] = []

    async def recorded(cases: object, chosen: list[str], model: str) -> dict[str, object]:
        seen.append((chosen, model))
        return {"cases": 0, "labels": {}, "unusable": {}, "vs_labels": {}, "between": {}, "scores": {}}

    monkeypatch.setattr(judges, "_calibrate", recorded)
    assert CliRunner().invoke(app, ["judges", "calibrate", "--json"]).exit_code == 0
    assert seen == [(["embedding"], "local")] and "llm" not in seen[0][0]  # type: ignore[index]
    done = CliRunner().invoke(app, ["judges", "calibrate", "--raters", "embedding,llm"])
    assert done.exit_code == 2 and "--judge-model" in " ".join(done.output.split()) and len(seen) == 1


async def test_calibrate_reports_progress_per_case() -> None:
    from judges.errors.calibration import LABELS_PATH, calibrate, load_labels
    from judges.errors.error_handling import ErrorCase, Rating

    class Fixed:
        mode = "fixed"

        async def rate(self, case: ErrorCase) -> Rating:
            return Rating(score=3, reasons="fixed")

    cases = load_labels(LABELS_PATH)[:5]
    ticks: list[str] = []
    report = await calibrate(cases, [Fixed()], ticks.append)
    assert ticks == ["fixed"] * 5 and report["cases"] == 5
