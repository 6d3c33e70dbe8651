"""The recall script's miss classification (``scripts/tool_search_misses.py``), on hand-made origins: no model, no
toolkit build."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.paths import REPO_ROOT


@pytest.fixture(scope="module")
def misses() -> ModuleType:
    """The script module, loaded from its file (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location("tool_search_misses", REPO_ROOT / "scripts" / "tool_search_misses.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_a_spider_miss_is_classed_by_its_table_and_its_own_neighbours(misses: ModuleType) -> None:
    origin = misses.Origin
    origins = {
        "count_singer": origin("own", "concert_singer", "count_singer", frozenset({"singer"})),
        "count_singer_history": origin("neighbour", "concert_singer", "count_singer", frozenset({"singer"})),
        "get_singer_name": origin("sel", "concert_singer", "get_singer_name", frozenset({"singer"})),
        "count_stadium": origin("own", "concert_singer", "count_stadium", frozenset({"stadium"})),
        "count_pets": origin("own", "pets_1", "count_pets", frozenset({"pets"})),
    }
    ranked = ["count_singer_history", "get_singer_name", "count_stadium", "count_pets", "count_singer"]
    found = misses.miss("How many singers?", "count_singer", {"count_singer"}, {"count_singer"}, ranked, origins, 4)
    assert found.relations == ["neighbour", "same table", "same group", "unrelated"]
    assert found.verdict == "neighbour"  # a four-way tie: the more specific relation
    assert (found.rank, found.role, found.covered) == (5, "core", True)  # count_singer_history has every word
    assert found.kinds == ["neighbour", "sel", "own", "own"]


def test_a_support_lookup_crowded_out_by_the_other_half_of_the_request(misses: ModuleType) -> None:
    origin = misses.Origin
    origins = {
        "play_media": origin("own", "media", "play_media"),
        "search_contacts": origin("own", "communication", "search_contacts"),
        "send_message": origin("own", "communication", "send_message"),
        "schedule_play_media": origin("neighbour", "media", "play_media"),
        "preview_play_media": origin("neighbour", "media", "play_media"),
        "pause_media": origin("own", "media", "pause_media"),
        "approve_invoice": origin("generated", "generated", "approve_invoice"),
    }
    gold, core = {"play_media", "search_contacts", "send_message"}, {"play_media", "send_message"}
    ranked = ["play_media", "schedule_play_media", "preview_play_media", "pause_media", "approve_invoice"]
    ranked += ["search_contacts", "send_message"]
    found = misses.miss("Play jazz. Also, text Ana.", "search_contacts", gold, core, ranked, origins, 5)
    assert found.relations == [
        *("gold", "other gold's look-alike", "other gold's look-alike", "other gold's group", "unrelated"),
    ]
    assert (found.verdict, found.role, found.covered) == ("other gold's look-alike", "support", False)
    lost = misses.miss("Play jazz. Also, text Ana.", "send_message", gold, core, ranked, origins, 5)
    assert lost.relations[3:] == ["other gold's group", "unrelated"] and lost.role == "core"


def test_the_summary_counts_classes_roles_and_slots(misses: ModuleType, tmp_path: Path) -> None:
    origin = misses.Origin
    origins = {name: origin("own", "home", name) for name in ("set_power", "set_power_history", "find_devices")}
    origins["set_power_history"] = origin("neighbour", "home", "set_power")
    ranked = ["set_power_history", "find_devices", "set_power"]
    found = [misses.miss("Lamp off.", "set_power", {"set_power", "find_devices"}, {"set_power"}, ranked, origins, 2)]
    lines = misses.summary(found, turns=1, k=2)
    assert lines[0] == "misses: 1 gold tools out of the top 2 (1 turns)"
    assert "  class gold: 1 (100%)" in lines  # a tie of gold and neighbour: the earlier relation
    assert "  covered (a tool above has every word of its name): 1 (100%)" in lines
    assert "  slots gold: 1 (50%)" in lines and "  role core: 1 (100%)" in lines
    misses.write(found, tmp_path / "m.jsonl")
    assert '"gold": "set_power"' in (tmp_path / "m.jsonl").read_text()
    assert misses.summary([], turns=3, k=9) == ["misses: none of 3 turns' gold tools fell out of the top 9"]
