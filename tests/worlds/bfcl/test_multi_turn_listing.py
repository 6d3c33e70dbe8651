"""BFCL in ``squall worlds list/show``, and what loading says when bfcl-eval is missing."""

from __future__ import annotations

import json

import pytest

from sim.cli.app import run_cli
from worlds.bfcl import categories, source
from worlds.bfcl.categories import NOT_SUPPORTED, select
from worlds.bfcl.source import BfclError


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run_cli(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_specs_select_their_categories_and_refuse_the_unsupported() -> None:
    assert select("bfcl:multi_turn").categories == (
        "multi_turn_base",
        "multi_turn_miss_func",
        "multi_turn_miss_param",
        "multi_turn_long_context",
    )
    assert select("bfcl:simple") == select("bfcl:simple_python")
    assert select("bfcl:live_irrelevance").kind == "single_turn"
    for name, reason in NOT_SUPPORTED.items():
        with pytest.raises(BfclError, match="not supported") as caught:
            select(f"bfcl:{name}")
        assert reason in str(caught.value)


def test_a_missing_wheel_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    def absent(_package: str) -> object:
        raise ModuleNotFoundError("No module named 'bfcl_eval'", name="bfcl_eval")

    monkeypatch.setattr("importlib.resources.files", absent)
    with pytest.raises(BfclError, match=r"make setup.*pip install --no-deps bfcl-eval==2026\.3\.23"):
        source.data_file("multi_turn_base")
    assert categories.entry_count("multi_turn") is None  # listings say "not installed" instead of failing


def test_worlds_list_shows_every_bfcl_category_with_counts_or_why_not(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("bfcl_eval")
    code, out, _ = _run(capsys, "worlds", "list", "--json")
    assert code == 0
    rows = {row["name"]: row for row in json.loads(out)}
    assert rows["smart_home"]["supported"] is True
    assert rows["bfcl:multi_turn"]["conversations"] == 800
    assert all(rows[f"bfcl:multi_turn_{c}"]["conversations"] == 200 for c in ("base", "miss_param"))
    assert rows["bfcl:simple"]["conversations"] == rows["bfcl:simple_python"]["conversations"] == 400
    assert rows["bfcl:web_search"]["supported"] is False and "offline" in rows["bfcl:web_search"]["reason"]
    code, text, _ = _run(capsys, "worlds", "list")
    assert code == 0 and "bfcl:multi_turn_long_context" in text and "not supported" in text


def test_worlds_show_gives_the_backend_classes_as_domains(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("bfcl_eval")
    code, out, _ = _run(capsys, "worlds", "show", "bfcl:multi_turn_base", "--json")
    info = json.loads(out)
    assert code == 0 and info["name"] == "bfcl:multi_turn_base" and info["conversations"] == 200
    assert len(info["tools"]) == 128 and len(info["domains"]) == 8
    assert {d["name"] for d in info["domains"]} >= {"GorillaFileSystem", "TravelAPI", "MathAPI"}
    code, _, err = _run(capsys, "worlds", "show", "bfcl:memory")
    assert code == 2 and "not supported" in err
