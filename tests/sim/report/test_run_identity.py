"""Every output names what was run: the terminal header, summary.json, summary.md, report.html and the compare
columns carry the run's identity and label; ``runs/latest`` reports the real run id; --compare is not silently
replaced by a second one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judges.run.run_identity import RunIdentity, default_label, redact_url, split_agent
from tests.support.cli import invoke, squall


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    common = ("--world", "smart_home", "--limit", "2", "--out", str(out), "-q")
    code, text = invoke("run", "--agent", "oracle", *common, "--run-id", "r-oracle")
    assert code == 0, text
    assert "agent: oracle · world: smart_home" in " ".join(text.split())  # the terminal header
    code, text = invoke("run", "--agent", "null", "--stressors", "failure", "--label", "my null", *common)
    assert code == 0, text
    return out


def test_identity_from_a_manifest_hides_secrets() -> None:
    manifest = {
        "run_id": "r1",
        "config": {
            "agent": "native:openai-chat:gpt-x@https://user:sk-secret@api.example.com/v1?key=sk-2",
            "world": "smart_home",
            "user": "scripted",
            "stressors": ["failure:rate=0.1", "adhoc"],
            "seed": 7,
            "trials": 2,
        },
        "git_commit": "abcdef1234567890",
        "versions": {"squall": "0.1.0"},
    }
    ident = RunIdentity.from_manifest(manifest, "set1", "real-id")
    assert ident.run_id == "real-id" and ident.model == "gpt-x" and ident.agent == "native:openai-chat:gpt-x"
    assert ident.base_url == "https://api.example.com/v1"
    assert "secret" not in ident.model_dump_json() and "sk-2" not in ident.header_line()
    assert ident.label == "native:gpt-x+failure,adhoc"
    line = ident.header_line()
    for needle in ("world: smart_home", "seed: 7", "trials: 2", "score set: set1", "squall: 0.1.0", "abcdef1234"):
        assert needle in line
    assert split_agent("openai-chat:m@vllm") == ("openai-chat:m", None, "vllm")
    named = RunIdentity.from_manifest(
        {"config": {"agent": "openai-chat:m@vllm"}, "endpoints": {"vllm": {"base_url": "http://h:1/v1"}}}
    )
    assert named.base_url == "http://h:1/v1" and named.endpoint == "vllm"
    assert redact_url("http://a:b@h:8000/v1#x") == "http://h:8000/v1"
    assert len(default_label("native:" + "m" * 80, [])) == 40


def test_every_output_names_the_run(runs: Path) -> None:
    run = runs / "r-oracle"
    stored = json.loads((run / "summary.json").read_text())
    assert stored["identity"]["agent"] == "oracle" and stored["identity"]["label"] == "oracle"
    assert stored["identity"]["world"] == "smart_home" and stored["identity"]["run_id"] == "r-oracle"
    md = (run / "summary.md").read_text()
    assert md.startswith("# squall run r-oracle: oracle\n") and "agent: oracle · world: smart_home" in md
    html = (run / "report.html").read_text()
    assert "agent: oracle · world: smart_home" in html and "commit: " in html


def test_latest_names_the_real_run(runs: Path) -> None:
    latest_id = (runs / "latest").resolve().name
    assert latest_id != "latest"
    code, out, _ = squall("report", str(runs / "latest"), "--no-html")
    assert code == 0
    assert f"squall run {latest_id}: my null" in out and "stressors: failure" in " ".join(out.split())
    code, out, _ = squall("report", str(runs / "latest"), "--json", "--no-html")
    assert json.loads(out)["run_id"] == latest_id


def test_compare_columns_are_labels(runs: Path) -> None:
    code, out, err = squall("report", str(runs / "latest"), "--compare", str(runs / "r-oracle"), "--no-html")
    assert code == 0, err
    flat = " ".join(out.split())
    assert "my null vs oracle" in flat and "my null = " in flat and "oracle = r-oracle: agent: oracle" in flat
    assert "…" not in out.split("my null vs oracle")[1].split("\n")[2]  # the column header is not cut


def test_two_compare_flags_are_an_error(runs: Path) -> None:
    other = str(runs / "r-oracle")
    code, _, err = squall("report", other, "--compare", other, "--compare", other, "--no-html")
    assert code == 2 and "--compare given 2 times" in err and "squall report A B C" in err
