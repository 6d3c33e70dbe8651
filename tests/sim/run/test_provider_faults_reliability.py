"""Issue 25, items 3 and 8, end to end over real HTTP: a provider cannot freeze a run or pass as the harness.

3. One 429 with ``Retry-After: 100000`` (the first request of the run): before, the endpoint stayed paused for
   100,000 s and the run hung. Now the run finishes, that episode is a classified provider fault, the others complete.
8. A provider that hangs past the request timeout on every attempt: before, 6 attempts x 120 s passed the 600 s
   episode deadline and the episode ended ``harness:timeout``. Here scaled by 1/120 (6 x 1 s against 5 s): it ends
   ``provider_error`` with ``provider:timeout``.

Each run is a separate process under a generous time limit, so a hang fails the test instead of hanging it.
"""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from sim.cli.common import EXIT_NOTHING_SCORED
from tests.support.mockllm_server import mock_llm_server
from tests.support.run_process import squall_process

pytestmark = pytest.mark.reliability

HANG_LIMIT_S = 180  # both runs take seconds when fixed; the first hung for 100,000 s before


def run(mock: dict[str, Any], tmp_path: Path, *options: str, exit_code: int = 0) -> list[dict[str, Any]]:
    with mock_llm_server(mock) as server:
        proc = squall_process(
            ["run", "--agent", f"openai-chat:mock-model@{server.url}", "--limit", "4", "--concurrency", "4",
             "--out", str(tmp_path), "--run-id", "r", "-q", "--no-preflight", *options]
        )  # fmt: skip
        try:
            _, err = proc.communicate(timeout=HANG_LIMIT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            pytest.fail(f"the run did not finish within {HANG_LIMIT_S} s")
    assert proc.returncode == exit_code, err.decode()
    return [json.loads(line) for line in (tmp_path / "r" / "episodes.jsonl").read_text().splitlines()]


def provider_codes(episode: dict[str, Any]) -> list[str]:
    return [e["code"] for e in episode["events"] if e["kind"] == "error" and e["fault"] == "provider"]


def test_a_retry_after_of_100000_s_on_one_request_does_not_freeze_the_run(tmp_path: Path) -> None:
    mock = {"policy": {"kind": "first_tool"}, "faults": [{"kind": "rate_limit", "at": [1], "retry_after_s": 100_000}]}
    episodes = run(mock, tmp_path)
    assert len(episodes) == 4
    assert Counter(e["termination"] for e in episodes) == {"completed": 3, "provider_error": 1}
    (failed,) = [e for e in episodes if e["termination"] == "provider_error"]
    assert provider_codes(failed) == ["provider:rate_limited"]


@pytest.mark.slow
def test_a_provider_hanging_on_every_attempt_is_a_provider_timeout(tmp_path: Path) -> None:
    config = tmp_path / "run.toml"
    config.write_text("[retry]\nmax_attempts = 6\nbase_delay_s = 0.05\nmax_delay_s = 0.1\n")
    mock = {"policy": {"kind": "first_tool"}, "faults": [{"kind": "timeout", "every": 1, "hang_s": 60.0}]}
    options = ("--config", str(config), "--request-timeout", "1", "--episode-timeout", "5")
    episodes = run(mock, tmp_path, *options, exit_code=EXIT_NOTHING_SCORED)  # every episode a provider fault
    assert [e["termination"] for e in episodes] == ["provider_error"] * 4
    for episode in episodes:
        faults = [(e["fault"], e["code"]) for e in episode["events"] if e["kind"] == "error"]
        assert set(faults) == {("provider", "provider:timeout")}, faults  # each retry and the give-up; no harness
        assert len(faults) == 6 and episode["events"][-1]["code"] == "provider:timeout"
