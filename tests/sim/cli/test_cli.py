"""The command line: bad input gives a clear error and exit 2; run, report and score work end to end."""

from __future__ import annotations

import json
from pathlib import Path

from sim.judging.judge_set import judge_names
from tests.support.cli import invoke


def test_bad_config_value_names_file_and_field(tmp_path: Path) -> None:
    cfg = tmp_path / "run.toml"
    cfg.write_text('agent = "oracle"\ntrials = 0\n')
    code, out = invoke("run", "--config", str(cfg), "--out", str(tmp_path))
    assert code == 2
    assert "run.toml" in out and "trials" in out


def test_unknown_config_key_and_bad_toml(tmp_path: Path) -> None:
    cfg = tmp_path / "run.toml"
    cfg.write_text('agent = "oracle"\ntrails = 3\n')
    code, out = invoke("run", "--config", str(cfg))
    assert code == 2 and "trails" in out and "run.toml" in out
    cfg.write_text("agent = oracle\n")
    code, out = invoke("run", "--config", str(cfg))
    assert code == 2 and "run.toml" in out and "line 1" in out


def test_option_error_names_the_option(tmp_path: Path) -> None:
    code, out = invoke("run", "--agent", "oracle", "--arg-match", "fuzzy", "--out", str(tmp_path))
    assert code == 2 and "--arg-match" in out


def test_bad_task_file_names_file_line_and_field(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.jsonl"
    good = {"id": "a", "world": "smart_home", "turns": [{"user": {"explicit": "hi"}, "gold": []}]}
    bad = {"id": "b", "world": "smart_home", "turns": [{"user": {"explicit": "hi"}, "gold": [{"arguments": {}}]}]}
    tasks.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    code, out = invoke("run", "--agent", "oracle", "--world", str(tasks), "--out", str(tmp_path))
    assert code == 2
    assert "tasks.jsonl:2" in out and "name" in out
    assert not (tmp_path / "latest").exists()  # nothing half written


def test_unknown_agent_stressor_and_task(tmp_path: Path) -> None:
    for args, needle in [
        (["--agent", "openai-chat:m@ftp://x"], "base URL"),
        (["--agent", "oracle", "--stressors", "earthquake"], "earthquake"),
        (["--agent", "oracle", "--task", "nope"], "nope"),
        (["--agent", "oracle", "--resume"], "--run-id"),
    ]:
        code, out = invoke("run", *args, "--out", str(tmp_path))
        assert code == 2, (args, out)
        assert needle in out, (args, out)


def test_run_report_and_score_round_trip(tmp_path: Path) -> None:
    code, out = invoke("run", "--agent", "oracle", "--limit", "2", "--out", str(tmp_path), "--run-id", "r", "-q")
    assert code == 0, out
    assert "core API accuracy" in out and "100.0%" in out
    run_dir = tmp_path / "r"
    summary = json.loads((run_dir / "summary.json").read_text())
    assert {"episodes", "failed_episodes", "core_api_accuracy", "conversation_success"} <= summary.keys()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert {"config", "config_hash", "git_commit", "versions", "seed"} <= manifest.keys()
    code, out = invoke("report", str(run_dir), "--json")
    assert code == 0 and json.loads(out)["core_api_accuracy"] == 1.0
    # Re-judging stored traces reproduces the stored scores without running the agent again, and appends:
    # the earlier lines stay exactly as they were.
    before = (run_dir / "scores.jsonl").read_text()
    code, out = invoke("score", str(run_dir))
    assert code == 0, out
    after = (run_dir / "scores.jsonl").read_text()
    assert after.startswith(before) and sorted(after[len(before) :].splitlines()) == sorted(before.splitlines())
    n = 2 * len(judge_names())  # 2 episodes, every judge
    assert f"{n} of {n} scores identical" in " ".join(out.split())
    code, out = invoke("report", str(tmp_path / "missing"))
    assert code == 2 and "missing" in out


def test_resume_of_a_finished_run_runs_nothing_new(tmp_path: Path) -> None:
    args = ["run", "--agent", "oracle", "--limit", "2", "--out", str(tmp_path), "--run-id", "r", "-q"]
    assert invoke(*args)[0] == 0
    code, out = invoke(*args, "--resume")
    assert code == 0, out
    lines = (tmp_path / "r" / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == 2
    code, out = invoke("run", "--agent", "null", "--limit", "2", "--out", str(tmp_path), "--run-id", "r", "--resume")
    assert code == 2 and "config_hash" in out


def test_resume_with_only_run_id_continues_the_stored_config(tmp_path: Path) -> None:
    args = ["--out", str(tmp_path), "--run-id", "r", "-q"]
    assert invoke("run", "--agent", "oracle", "--limit", "2", "--stressors", "outage", *args)[0] == 0
    (tmp_path / "r" / "episodes.jsonl").write_text(
        (tmp_path / "r" / "episodes.jsonl").read_text().splitlines()[0] + "\n"
    )
    code, out = invoke("run", "--resume", *args)
    assert code == 0, out
    lines = (tmp_path / "r" / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == 2 and all('"stressors":["outage.backup"]' in line for line in lines)


def test_quickstart_applies_only_without_agent_and_world(tmp_path: Path) -> None:
    from sim.config.resolve import resolve_config
    from sim.config.run_config import QUICKSTART

    cfg, quickstart = resolve_config(None, {})
    assert quickstart and cfg.tasks == QUICKSTART["tasks"]
    cfg, quickstart = resolve_config(None, {"world": "x.jsonl"})
    assert not quickstart and cfg.tasks == []
    cfg, quickstart = resolve_config(None, {"agent": "oracle"})
    assert not quickstart and cfg.max_steps == 15


def test_missing_embedded_model_is_a_clear_error(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import sim.llm.local.server as local_server

    monkeypatch.setattr(local_server, "local_model_available", lambda: "llama_cpp is not installed")
    code, out = invoke("run", "--agent", "text:local", "--out", str(tmp_path), "--run-id", "r")
    assert code == 2 and "llama_cpp is not installed" in out and "make setup" in out
    assert not (tmp_path / "r").exists()
