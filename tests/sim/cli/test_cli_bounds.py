"""Settings are what they say: integers are integers (not true, "3" or 2.0), numbers are finite, a user spec names
its persona, and an error line stays a line whatever was passed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import assert_clean_failure, squall, tree

pytestmark = pytest.mark.reliability  # issue 25's suite


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        ('agent = "oracle"\ntrials = true\n', ["trials", "valid integer"]),
        ('agent = "oracle"\ntrials = "3"\n', ["trials", "valid integer"]),
        ('agent = "oracle"\ntrials = 2.0\n', ["trials", "valid integer"]),
        ('agent = "oracle"\nmax_cost = "1.5"\n', ["max_cost", "valid number"]),
        ('agent = "oracle"\nepisode_timeout_s = inf\n', ["episode_timeout", "finite"]),
        ('agent = "oracle"\n[retry]\nmax_delay_s = inf\n', ["max_delay_s", "finite"]),
        ('agent = "oracle"\n[retry]\nmax_attempts = 2.5\n', ["max_attempts", "valid integer"]),
    ],
)
def test_toml_numbers_are_strict_and_finite(tmp_path: Path, text: str, needles: list[str]) -> None:
    cfg = tmp_path / "run.toml"
    cfg.write_text(text)
    code, _, err = squall("run", "--config", str(cfg), "--out", str(tmp_path / "runs"), "-q")
    assert_clean_failure(code, err, *needles)
    assert tree(tmp_path) == ["run.toml"]


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["--request-timeout", "inf"], ["--request-timeout", "finite"]),
        (["--temperature", "inf"], ["--temperature", "finite"]),
        (["--episode-timeout", "nan"], ["--episode-timeout", "finite"]),
        (["--user", "llm@"], ["--user", "nothing after '@'"]),
    ],
)
def test_options_are_finite_and_complete(tmp_path: Path, args: list[str], needles: list[str]) -> None:
    code, _, err = squall("run", "--agent", "oracle", *args, "--out", str(tmp_path / "runs"), "-q")
    assert_clean_failure(code, err, *needles)
    assert tree(tmp_path) == []


def test_a_huge_option_value_is_refused_by_its_length_and_not_echoed(tmp_path: Path) -> None:
    code, _, err = squall("run", "--agent", "x" * 10_000_000, "--out", str(tmp_path / "runs"), "-q")
    line = assert_clean_failure(code, err, "argument 3", "10,000,000 characters")
    assert len(line) < 300
    assert tree(tmp_path) == []


def test_an_error_naming_a_long_value_is_truncated(tmp_path: Path) -> None:
    code, _, err = squall("run", "--agent", "x" * 60_000, "--out", str(tmp_path / "runs"), "-q")
    line = assert_clean_failure(code, err, "--agent", "characters in all")
    assert len(line) < 3000
    assert tree(tmp_path) == []
