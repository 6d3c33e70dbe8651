"""Every bad input the CLI-trust issue found gives one line naming where, exit 2, and nothing written.

Each test reproduces one row of the issue's table (or one of its 'also found' items) end to end, through
``run_cli`` — the real entry point, usage errors included.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import assert_clean_failure, squall, tree
from worlds.domains.smart_home.pack import DATA_DIR


@pytest.mark.parametrize(
    ("agent", "needle"),
    [
        ("foo:bar", "Unknown model"),
        ("openai:gpt-4o-mini", "OPENAI_API_KEY"),  # no key in the environment (cleared below)
        ("anthropic:claude-3-5-haiku-latest", "anthropic"),  # that extra is not installed
    ],
)
def test_unusable_agent_model_fails_before_the_run_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agent: str, needle: str
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    runs = tmp_path / "runs"
    code, _, err = squall("run", "--agent", agent, "--out", str(runs), "--run-id", "r", "-q")
    assert_clean_failure(code, err, "--agent", needle)
    assert not runs.exists()  # no half-written folder, no 'latest' link
    # ... so the run id stays free for the corrected command.
    code, _, err = squall("run", "--agent", "oracle", "--limit", "1", "--out", str(runs), "--run-id", "r", "-q")
    assert code == 0, err


@pytest.mark.parametrize("run_id", ["..", ".", "a/b", "../x", "latest", "-x", ""])
def test_run_ids_are_names_never_paths(tmp_path: Path, run_id: str) -> None:
    runs = tmp_path / "runs"
    code, _, err = squall("run", "--agent", "oracle", "--limit", "1", "--out", str(runs), "--run-id", run_id, "-q")
    assert_clean_failure(code, err, "--run-id")
    assert tree(tmp_path) == []


def test_latest_lives_inside_out(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    code, _, err = squall("run", "--agent", "oracle", "--limit", "1", "--out", str(runs), "--run-id", "r1", "-q")
    assert code == 0, err
    assert tree(tmp_path) == sorted(["runs", *(f"runs/{p}" for p in tree(runs))])
    assert (runs / "latest").resolve() == (runs / "r1").resolve()


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        ('agent = "oracle"\n[run]\ntrials = 2\n', ["agent outside the [run] table"]),
        ('[run]\nagent = "oracle"\n[retry]\nmax_attempts = 2\n', ["retry outside the [run] table"]),
        ('agent = "oracle"\n[retry]\nmax_attempts = 2\nfoo = 1\n', ["run.toml:4", "[retry] key 'foo'", "unknown"]),
        ('[run]\nagent = "oracle"\n[run.retry]\nbogus = 0\n', ["run.toml:4", "[run.retry] key 'bogus'"]),
        ('agent = "oracle"\n[retyr]\nmax_attempts = 2\n', ["run.toml:2", "'retyr'", "unknown"]),
        ('agent = "oracle"\ntrials = 0\n', ["run.toml:2", "'trials'"]),
    ],
)
def test_toml_has_one_rule_and_every_table_is_validated(tmp_path: Path, text: str, needles: list[str]) -> None:
    cfg = tmp_path / "run.toml"
    cfg.write_text(text)
    runs = tmp_path / "runs"
    code, _, err = squall("run", "--config", str(cfg), "--out", str(runs), "-q")
    assert_clean_failure(code, err, *needles)
    assert not runs.exists()


def test_a_run_table_alone_is_honoured(tmp_path: Path) -> None:
    cfg = tmp_path / "run.toml"
    cfg.write_text('[run]\nagent = "null"\nlimit = 1\n[run.retry]\nmax_attempts = 2\n')
    code, _, err = squall("run", "--config", str(cfg), "--out", str(tmp_path), "--run-id", "r", "-q")
    assert code == 0, err
    config = json.loads((tmp_path / "r" / "manifest.json").read_text())["config"]
    assert config["agent"] == "null" and config["limit"] == 1 and config["retry"]["max_attempts"] == 2


def test_an_absurd_plan_is_refused_at_once(tmp_path: Path) -> None:
    code, _, err = squall("run", "--agent", "oracle", "--trials", "1000000000", "--out", str(tmp_path / "runs"))
    assert_clean_failure(code, err, "--trials")
    # 10 tasks × 200,000 trials passes the field check but not the plan size check.
    code, _, err = squall("run", "--agent", "oracle", "--trials", "200000", "--out", str(tmp_path / "runs"))
    assert_clean_failure(code, err, "--trials", "2,000,000 episodes")
    assert tree(tmp_path) == []


def test_out_naming_a_file(tmp_path: Path) -> None:
    target = tmp_path / "afile"
    target.write_text("x")
    code, _, err = squall("run", "--agent", "oracle", "--out", str(target))
    assert_clean_failure(code, err, "--out", "not a directory")
    assert target.read_text() == "x"


def test_option_errors_name_the_option_that_exists(tmp_path: Path) -> None:
    code, _, err = squall("run", "--agent", "oracle", "--episode-timeout", "-1", "--out", str(tmp_path / "r"))
    line = assert_clean_failure(code, err, "--episode-timeout")
    assert "--episode-timeout-s" not in line
    code, _, err = squall("run", "--agent", "oracle", "--request-timeout", "0", "--out", str(tmp_path / "r"))
    assert_clean_failure(code, err, "--request-timeout")
    code, _, err = squall("run", "--agent", "oracle", "--trials", "abc")
    assert_clean_failure(code, err, "--trials")
    code, _, err = squall("run", "--agent", "oracle", "--bogus")
    assert_clean_failure(code, err, "--bogus")
    assert tree(tmp_path) == []


def test_mock_llm_port_in_use_and_bad_host(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        code, _, err = squall("mock-llm", "--port", port, "--max-lifetime", "1")
        assert_clean_failure(code, err, port, "in use")
    code, _, err = squall("mock-llm", "--host", "999.1.1.1", "--port", "0", "--max-lifetime", "1")
    assert_clean_failure(code, err, "999.1.1.1")
    code, _, err = squall("mock-llm", "--port", "70000")
    assert_clean_failure(code, err, "--port")


def test_gold_call_that_does_not_execute_is_rejected_at_load(tmp_path: Path) -> None:
    first = (DATA_DIR / "tasks.jsonl").read_text().splitlines()[0]
    assert '"living_ceiling_light"' in first
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(first.replace('"living_ceiling_light"', '"ghost_light"') + "\n")
    runs = tmp_path / "runs"
    code, _, err = squall("run", "--agent", "oracle", "--world", str(tasks), "--out", str(runs))
    assert_clean_failure(code, err, "tasks.jsonl", "task sh-001", "turns.0", "ghost_light", "not_found")
    assert not runs.exists()


def test_endpoint_concurrency_follows_concurrency_unless_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sim.config.gateway
    from sim.llm.admission.scheduled import ScheduledAdmission
    from sim.llm.admission.static import StaticAdmission

    seen: list[object] = []
    real = sim.config.gateway.admission_policy

    def spy(*args: Any, **kwargs: Any) -> object:
        policy = real(*args, **kwargs)
        if isinstance(policy, StaticAdmission):
            seen.append(policy.concurrency)
        else:
            assert isinstance(policy, ScheduledAdmission)
            limits = policy.scheduler.default
            seen.append((limits.concurrency, limits.ceiling))  # pinned connections, adaptive ceiling
        return policy

    monkeypatch.setattr(sim.config.gateway, "admission_policy", spy)
    base = ["run", "--agent", "oracle", "--limit", "1", "--out", str(tmp_path), "-q", "--concurrency", "50"]
    assert squall(*base, "--run-id", "a")[0] == 0
    assert squall(*base, "--endpoint-concurrency", "7", "--run-id", "b")[0] == 0
    assert squall(*base, "--scheduler", "static", "--run-id", "c")[0] == 0
    assert squall(*base, "--scheduler", "static", "--endpoint-concurrency", "7", "--run-id", "d")[0] == 0
    assert seen == [(None, 50), (7, 50), 50, 7]


def test_a_latest_folder_in_out_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    (runs / "latest").mkdir(parents=True)
    code, _, err = squall("run", "--agent", "oracle", "--limit", "1", "--out", str(runs), "--run-id", "r", "-q")
    assert_clean_failure(code, err, "latest", "not a link")
    assert tree(runs) == ["latest"]
