"""Many runs at once, through the command line at 80 columns: the runs list, the leaderboard, a report of three
runs, the export; state match reads the same in a run's headline and in the paired comparison."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from tests.support.cli import assert_clean_failure, invoke, squall

AGENTS = ("oracle", "null", "naive")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    for agent in AGENTS:
        code, text = invoke("run", "--agent", agent, "--world", "smart_home", "--limit", "5", "--out", str(out),
                            "--run-id", agent, "-q")  # fmt: skip
        assert code == 0, text
    return out


@pytest.fixture(autouse=True)
def eighty_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")


def widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


def test_runs_list_names_each_run_in_80_columns(runs: Path) -> None:
    code, out = invoke("runs", "list", str(runs))
    assert code == 0, out
    assert widest(out) <= 80 and "…" not in out
    for agent in AGENTS:
        assert re.search(rf"│ {agent}\s+│ {agent}\s+│ smart_home", out), out
    assert "latest" not in out  # the link is not a run of its own
    code, out = invoke("runs", "list", str(runs), "--json")
    assert code == 0 and {r["agent"] for r in json.loads(out)} == set(AGENTS)
    assert_clean_failure(*squall("runs", "list", str(runs / "nowhere"))[::2], "no such folder")


def test_leaderboard_ranks_agents_with_paired_intervals(runs: Path) -> None:
    dirs = [str(runs / a) for a in AGENTS]
    code, out = invoke("leaderboard", *dirs, "--by", "agent")
    assert code == 0, out
    assert widest(out) <= 80 and "bootstrap over tasks" in out and "paired" in out
    code, out = invoke("leaderboard", *dirs, "--json", "--metric", "conversation_success")
    (board,) = json.loads(out)["boards"]
    names = [r["name"] for r in board["rows"]]
    assert names[-1] == "null" and set(names) == set(AGENTS) and board["shared_episodes"] == 5
    null = board["rows"][-1]
    assert null["delta"] == -1.0 and null["delta_ci95"] == [-1.0, -1.0]
    assert_clean_failure(*squall("leaderboard", *dirs, "--by", "colour")[::2], "--by")


def test_leaderboard_of_a_runs_folder_reads_its_runs(runs: Path) -> None:
    code, out = invoke("leaderboard", str(runs), "--json")
    assert code == 0, out
    doc = json.loads(out)
    (board,) = doc["boards"]  # `latest` is the same run again, not a fourth row
    assert (board["world"], board["plan"]) == ("smart_home", "first 5 tasks")
    assert {r["name"] for r in board["rows"]} == set(AGENTS) and doc["not_comparable"] == doc["notes"] == []
    code, out = invoke("leaderboard", str(runs))
    assert code == 0 and widest(out) <= 80 and "smart_home, first 5 tasks" in out, out


def test_report_of_three_runs_pairs_them_against_the_first(runs: Path) -> None:
    code, out = invoke("report", *(str(runs / a) for a in AGENTS))
    assert code == 0, out
    assert widest(out) <= 80
    assert "paired vs oracle" in out and re.search(r"│ null\s+│\s+-100\.0 \[-100,-100\]", out), out
    header = next(line for line in out.splitlines() if "metric" in line)
    assert all(a in header for a in AGENTS)


def test_state_match_reads_the_same_in_the_headline_and_the_paired_table(runs: Path) -> None:
    code, out = invoke("report", str(runs / "null"), "--compare", str(runs / "oracle"), "--no-html", "--json")
    headline = json.loads(out)["state_match"]
    code, out = invoke("report", str(runs / "null"), "--compare", str(runs / "oracle"), "--no-html")
    assert code == 0 and headline is not None
    paired = re.search(r"│ state_match\s+│\s+\d+ │\s+\d+ │\s+([\d.]+)%", out)
    assert paired, out
    assert paired.group(1) == f"{100 * headline:.1f}"  # same goals counted in both: not a mean of episode means


def test_export_writes_episode_and_goal_tables(runs: Path, tmp_path: Path) -> None:
    code, out = invoke("export", str(runs / "null"), "--format", "csv", "--out", str(tmp_path / "csv"))
    assert code == 0, out
    with (tmp_path / "csv" / "episodes.csv").open() as f:
        episodes = list(csv.DictReader(f))
    assert len(episodes) == 5 and {e["agent"] for e in episodes} == {"null"}
    assert all(e["core_api_accuracy"] == "0.0" for e in episodes)
    with (tmp_path / "csv" / "goals.csv").open() as f:
        goals = list(csv.DictReader(f))
    core = [g for g in goals if g["judge"] == "core_api_accuracy"]
    assert core and all(g["errors"].startswith("core:") for g in core)  # the goal's own codes, prefix dropped
    code, out = invoke("export", str(runs / "null"), "-f", "jsonl", "--out", str(tmp_path / "j"))
    lines = (tmp_path / "j" / "goals.jsonl").read_text().splitlines()
    assert code == 0 and len(lines) == len(goals) and json.loads(lines[0])["run_id"] == "null"
    assert_clean_failure(*squall("export", str(runs / "null"), "-f", "xml")[::2], "--format")
    assert not (runs / "null" / "export").exists()  # a bad format writes nothing


def test_export_parquet(runs: Path, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    code, out = invoke("export", str(runs / "oracle"), "-f", "parquet", "--out", str(tmp_path))
    assert code == 0, out
    table = pq.read_table(tmp_path / "episodes.parquet")
    assert table.num_rows == 5 and table.column("core_api_accuracy").to_pylist() == [1.0] * 5


def test_stressors_list_has_a_header_and_cuts_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    from worlds.stressors import builtin_scenarios

    code, out = invoke("stressors", "list", "--type", "outage")
    assert code == 0 and widest(out) <= 80 and "…" not in out
    assert re.search(r"┃ scenario\s+┃ level\s+┃ tools\s+┃ effect\s+┃", out), out
    monkeypatch.setenv("COLUMNS", "400")
    code, out = invoke("stressors", "list")
    assert code == 0 and all(s.name in out for s in builtin_scenarios())  # every row, its name whole
