"""A mistyped name gets the closest known one, a missing path is said to be missing, and a model string with no
@URL says which server it was taken to mean: one line each, exit 2, nothing written."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NoReturn

import pytest

import sim.run.preflight as preflight
from sim.core.suggest import did_you_mean
from tests.support.cli import assert_clean_failure, squall


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--agent", "oracel"], "did you mean 'oracle'?"),
        (["--agent", "oracle", "--world", "multidomian"], "did you mean 'multidomain'?"),
        (["--agent", "oracle", "--stressors", "outgae"], "did you mean 'outage'?"),
        (["--agent", "oracle", "--user", "scriptd"], "did you mean 'scripted'?"),
        (["--agent", "oracle", "--error-judge", "emebdding"], "did you mean 'embedding'?"),
        (["--agent", "oracle", "--world", "runs/nothing_here"], "runs/nothing_here: no such world folder or task file"),
    ],
)
def test_a_mistake_names_its_fix(tmp_path: Path, argv: list[str], says: str) -> None:
    code, _, err = squall("run", *argv, "--out", str(tmp_path / "runs"), "-q")
    assert_clean_failure(code, err, says)
    assert not (tmp_path / "runs").exists()


def test_a_config_key_mistyped_names_the_setting(tmp_path: Path) -> None:
    config = tmp_path / "run.toml"
    config.write_text('agnet = "oracle"\n')
    code, _, err = squall("run", "-c", str(config), "--out", str(tmp_path / "runs"))
    assert_clean_failure(code, err, "run.toml:1", "did you mean 'agent'?")


def test_a_model_with_no_url_says_which_server_it_assumed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def unanswered(url: str, headers: object, payload: object, timeout: float, problem: Any, **_: Any) -> NoReturn:
        raise problem("endpoint does not answer (no network in tests)")  # no request leaves this machine

    monkeypatch.setattr(preflight, "_request", unanswered)
    code, _, err = squall("run", "--agent", "openai-chat:my-model", "--out", str(tmp_path / "runs"))
    assert_clean_failure(code, err, "https://api.openai.com/v1 (assumed: the model string names no @URL")


def test_no_suggestion_for_a_name_close_to_nothing() -> None:
    assert did_you_mean("zzz", ["oracle", "null"]) == ""
    assert did_you_mean("nul", ["oracle", "null"]) == " (did you mean 'null'?)"
