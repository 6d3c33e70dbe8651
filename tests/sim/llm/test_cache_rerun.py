"""A cached re-run with the same seed makes zero endpoint requests and produces the same traces."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.cli import squall
from tests.support.mockllm_server import mock_llm_server


def events_without_timing(run_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """Every episode's events, less wall-clock times and usage (a cache hit is free and instant by design)."""
    out = {}
    for line in (run_dir / "episodes.jsonl").read_text().splitlines():
        episode = json.loads(line)
        out[episode["episode_id"]] = [
            {k: v for k, v in event.items() if k not in ("t", "usage")} for event in episode["events"]
        ]
    return out


def test_a_cached_rerun_makes_no_requests_and_gives_identical_traces(tmp_path: Path) -> None:
    with mock_llm_server({"policy": {"kind": "first_tool"}}) as server:
        args = ["run", "--agent", f"openai-chat:mock-model@{server.url}", "--limit", "3", "--trials", "2"]
        args += ["--cache", "read-write", "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path), "-q"]
        code, _, err = squall(*args, "--run-id", "first")
        assert code == 0, err
        served = server.stats()["completions"]
        assert served > 0
        code, _, err = squall(*args, "--run-id", "second")
        assert code == 0, err
        assert server.stats()["completions"] == served  # not one request reached the endpoint
    first, second = events_without_timing(tmp_path / "first"), events_without_timing(tmp_path / "second")
    assert first == second and len(first) == 6
    usage = json.loads((tmp_path / "second" / "summary.json").read_text())["usage"]
    assert usage["requests"] == 0 and usage["cached"] == served


def test_read_only_cache_never_writes(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with mock_llm_server({"policy": {"kind": "first_tool"}}) as server:
        code, _, err = squall(
            "run", "--agent", f"openai-chat:mock-model@{server.url}", "--limit", "1", "--cache", "read-only",
            "--cache-dir", str(cache), "--out", str(tmp_path), "--run-id", "r", "-q",
        )  # fmt: skip
        assert code == 0, err
        assert server.stats()["completions"] > 0
    assert not cache.exists() or not any(cache.rglob("*.json"))
