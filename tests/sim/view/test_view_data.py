"""`squall view` without a browser: the per-request trace, the documents, the static files, the served API, a run
read while it is written (a partial last line), the compare view's flipped tasks, and the command's errors and
Ctrl-C."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from sim.core import ToolSpec
from sim.store.run_store import RunStore
from sim.view.episode_data import ViewProjector
from sim.view.server import make_server
from sim.view.site import ViewSite
from tests.support.cli import assert_clean_failure, squall
from tests.support.mockllm_server import REPO_ROOT


def test_trace_records_every_model_request_per_step(view_runs: Path) -> None:
    for episode in RunStore(view_runs / "mock-stress").iter_episodes():
        agent = [c for c in episode.model_calls if c.role == "agent"]
        assert len(agent) == episode.usage.requests > 0
        assert sum(c.input_tokens for c in agent) == episode.usage.input_tokens
        assert all(c.latency_s >= 0 and c.step >= 1 for c in agent)
        steps = {(ev.turn, ev.step) for ev in episode.events if ev.kind == "tool_call" and not ev.replayed}
        assert steps <= {(c.turn, c.step) for c in agent}  # every step that called a tool was a charged request
    oracle = next(RunStore(view_runs / "oracle").iter_episodes())
    assert oracle.model_calls == []  # a scripted agent asks no model


def test_documents_of_a_run(view_runs: Path) -> None:
    site = ViewSite([view_runs], cap=1000)
    runs = site.document("runs")
    assert runs is not None and {r["key"] for r in runs["runs"]} == {"mock-stress", "oracle", "null"}
    (board,) = runs["leaderboards"]["core_api_accuracy/agent"]["boards"]  # one world, one plan: one board
    assert board["rows"][0]["name"] == "oracle" and "<svg" in board["chart"] and board["world"] == "smart_home"
    run = site.document("run/mock-stress")
    assert run is not None and run["stored"] == run["shown"] == len(run["episodes"]) > 0
    assert run["identity"]["stressors"] == ["outage", "failure"] and run["sections"][0]["key"] == "headline"
    assert any("chart-err" in c for c in run["charts"]), "an interval chart with error bars"
    chunk = site.document("chunk/mock-stress/0")
    assert chunk is not None
    episode = chunk["episodes"][0]
    assert chunk["shared"][episode["tools"]][0]["name"] and chunk["shared"][episode["instructions"]]
    assert episode["calls"] and episode["states"] and len(episode["steps"]) == len(episode["events"])
    assert site.document("run/nope") is None and site.document("chunk/mock-stress/99") is None


def test_a_runs_toolkit_is_projected_once(view_runs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Episodes read from a store share their toolkit's specs: the viewer dumps them once, not once per episode."""
    dumps = 0
    real = ToolSpec.model_dump

    def counting(self: ToolSpec, *args: Any, **kwargs: Any) -> dict[str, Any]:
        nonlocal dumps
        dumps += 1
        return real(self, *args, **kwargs)

    monkeypatch.setattr(ToolSpec, "model_dump", counting)
    episodes = list(RunStore(view_runs / "oracle").iter_episodes())
    projector = ViewProjector()
    assert len({projector(ep)["tools"] for ep in episodes}) == 1 and len(episodes) > 1
    assert dumps == len(episodes[0].tools) > 0


def test_compare_lists_the_flipped_tasks(view_runs: Path) -> None:
    doc = ViewSite([view_runs], cap=1000).document("compare/oracle/null")
    assert doc is not None and doc["paired"] == 6
    assert {f["task"] for f in doc["flipped"]} == {"sh-001", "sh-002", "sh-003"}
    assert all(f["way"] == "broke" and f["a"] == f["pairs"] == 2 and f["b"] == 0 for f in doc["flipped"])
    core = next(d for d in doc["diffs"] if d["judge"] == "core_api_accuracy")
    assert (core["a"], core["b"], core["diff"]) == (1.0, 0.0, -1.0)


def test_static_files_and_their_errors(view_runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    code, _, err = squall("view", str(view_runs), "--out", str(out))
    assert code == 0, err
    page = (out / "index.html").read_text()
    assert not re.search(r"(?:src|href)=\"?(?:https?:)?//", page), "nothing from the network"
    assert (out / "data" / "runs.js").read_text().startswith('squallData("runs",')
    assert (out / "data" / "compare_2Foracle_2Fnull.js").exists()
    code, _, err = squall("view", str(view_runs), "--out", str(out))  # its own earlier output is replaced
    assert code == 0, err
    other = tmp_path / "other"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    assert_clean_failure(*squall("view", str(view_runs), "--out", str(other))[::2], "not an empty folder")
    assert (other / "keep.txt").read_text() == "mine"
    assert_clean_failure(*squall("view", str(tmp_path / "missing"))[::2], "no such run folder")
    assert_clean_failure(*squall("view", str(other))[::2], "no runs found")


@contextmanager
def served(site: ViewSite) -> Iterator[str]:
    server = make_server(site)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=20) as resp:
        return json.loads(resp.read())


def test_served_api_follows_a_run_being_written(view_runs: Path, tmp_path: Path) -> None:
    live = tmp_path / "runs" / "live"
    shutil.copytree(view_runs / "oracle", live, ignore=shutil.ignore_patterns("*.html"))
    lines = (live / "episodes.jsonl").read_text().splitlines(keepends=True)
    (live / "episodes.jsonl").write_text("".join(lines[:3]))
    with served(ViewSite([tmp_path / "runs"], cap=1000)) as url:
        assert urllib.request.urlopen(url, timeout=20).read().startswith(b"<!DOCTYPE html>")
        assert len(get_json(url + "api/run/live.json")["episodes"]) == 3
        version = get_json(url + "api/version.json")["runs"]["live"]
        with (live / "episodes.jsonl").open("a") as f:  # a writer mid-line: not a record yet
            f.write(lines[3][:50])
        assert len(get_json(url + "api/run/live.json")["episodes"]) == 3
        with (live / "episodes.jsonl").open("a") as f:
            f.write(lines[3][50:])
        assert get_json(url + "api/version.json")["runs"]["live"] != version
        assert len(get_json(url + "api/run/live.json")["episodes"]) == 4
        try:
            urllib.request.urlopen(url + "api/run/nope.json", timeout=20)
            raise AssertionError("an unknown run is a 404")
        except urllib.error.HTTPError as exc:
            assert exc.code == 404


def test_command_prints_its_address_and_stops_on_ctrl_c(view_runs: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "sim", "view", str(view_runs)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/ +\(pid (\d+);", line)
        assert m and int(m.group(2)) == proc.pid, line
        assert get_json(f"http://127.0.0.1:{m.group(1)}/api/runs.json")["runs"]
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)


def test_the_judge_chart_counts_as_the_headline_and_the_list_shows_core_api_accuracy(view_runs: Path) -> None:
    """The run page's judge chart shows the headline's own number (goals, not a mean of episode means), and the
    episode list's number is core API accuracy by name, not an undocumented blend of judges."""
    summary = json.loads((view_runs / "mock-stress" / "summary.json").read_text())
    run = ViewSite([view_runs], cap=1000).document("run/mock-stress")
    assert run is not None
    (chart,) = [c for c in run["charts"] if "judges as the headline counts them" in c]
    bar = re.search(r"<title>core_api_accuracy</title>.*?class=\"chart-value\">([\d.]+)%  n=(\d+)<", chart)
    assert bar is not None
    assert bar.group(1) == f"{100 * summary['core_api_accuracy']:.1f}" and int(bar.group(2)) == summary["scored_turns"]
    per_episode = [r["judges"]["core_api_accuracy"] for r in run["episodes"] if "core_api_accuracy" in r["judges"]]
    assert len(per_episode) < summary["scored_turns"]  # goals, not episodes, are counted
    script = (REPO_ROOT / "sim" / "view" / "view_run.js").read_text()
    assert '"core API acc."' in script and "S.pct(r.rank)" not in script
