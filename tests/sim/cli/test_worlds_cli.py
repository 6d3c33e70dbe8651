"""`squall worlds list | show | validate` through the real entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim.cli.app import run_cli


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run_cli(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_names_every_builtin_world(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "worlds", "list", "--json")
    assert code == 0
    assert {row["name"] for row in json.loads(out)} >= {"smart_home", "multidomain"}


def test_show_json_has_domains_tools_graph_and_statistics(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "worlds", "show", "multidomain", "--json")
    info = json.loads(out)
    assert code == 0
    assert isinstance(info["domains"], list) and isinstance(info["tools"], list)
    assert isinstance(info["conversations"], int)
    assert info["dependency_graph"]["set_brightness"] == ["find_devices", "set_power"]
    names = {t["name"] for t in info["tools"]}
    assert all(set(reqs) <= names for reqs in info["dependency_graph"].values())
    code, text, _ = _run(capsys, "worlds", "show", "smart_home")
    assert code == 0 and "16 tools" in text and "10 conversations" in text


def test_validate_passes_on_the_builtin_worlds(capsys: pytest.CaptureFixture[str]) -> None:
    for world in ("smart_home", "multidomain"):
        code, out, err = _run(capsys, "worlds", "validate", world)
        assert code == 0, err
        assert f"{world}: ok" in out


def test_validate_names_the_call_that_does_not_execute(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    task = {
        "id": "broken",
        "world": "multidomain",
        "turns": [
            {
                "user": {"explicit": "Dim the bedside lamp."},
                "gold": [{"name": "set_brightness", "arguments": {"device_id": "bedroom_lamp", "level": 5}}],
            }
        ],
    }
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps(task) + "\n")
    code, _, err = _run(capsys, "worlds", "validate", str(path))
    assert code == 1
    assert "broken" in err and "turns.0" in err and "set_brightness" in err and "has not been looked up" in err


def test_unknown_world_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "worlds", "show", "atlantis")
    assert code == 2 and "unknown world 'atlantis'" in err and len(err.strip().splitlines()) == 1
