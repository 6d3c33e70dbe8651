"""The world seams: pack-level tools, world kinds, goal tool lists checked at load, optional capabilities."""

from __future__ import annotations

import json
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

import worlds.registry as registry
from sim.core import SharedWorldPack, TaskStateWorld, WorldContext
from sim.core.task_state import task_state
from tests.support.world_seams import HOME, PerTaskPack
from worlds.describe import ToolkitPack, describe
from worlds.registry import WorldLoadError, load_world


@pytest.mark.parametrize("name", sorted(registry.BUILTIN_WORLDS))
def test_a_packs_tools_are_its_task_free_worlds_tools(name: str) -> None:
    pack = load_world(name)
    assert pack.tool_specs() == pack.new_world(0).specs()
    task = pack.tasks()[0]
    assert pack.new_world(0, WorldContext(task=task)).specs() == pack.tool_specs()  # today's worlds ignore the task


def test_describe_lists_a_pack_level_toolkit_without_building_a_world() -> None:
    described = describe(PerTaskPack())  # refuses to build a world without a task
    assert [t["name"] for t in described["tools"]] == [s.name for s in HOME.tool_specs()]


def test_optional_capabilities_are_protocols() -> None:
    multidomain, sql = load_world("multidomain"), load_world("sql_sample")
    assert isinstance(multidomain, ToolkitPack) and not isinstance(HOME, ToolkitPack)
    assert isinstance(HOME.new_world(0), TaskStateWorld) and not isinstance(sql.new_world(0), TaskStateWorld)
    assert task_state(sql.new_world(0)) is None and task_state(HOME.new_world(0)) == {}
    assert isinstance(HOME, SharedWorldPack) and not isinstance(PerTaskPack(), SharedWorldPack)
    assert len({d["name"] for d in describe(multidomain)["domains"]}) > 1


# -- world kinds -----------------------------------------------------------------------------------------------


def test_a_world_toml_names_its_kind(tmp_path: Path) -> None:
    (tmp_path / "world.toml").write_text('kind = "domain"\ndomain = "smart_home"\n')
    assert load_world(str(tmp_path)).name == "smart_home"
    (tmp_path / "world.toml").write_text('kind = "bfcl"\n')
    with pytest.raises(WorldLoadError, match=r"world.toml: unknown kind 'bfcl'; known kinds: domain, simulated, sql"):
        load_world(str(tmp_path))
    (tmp_path / "world.toml").write_text("kind = 3\n")
    with pytest.raises(WorldLoadError, match="unknown kind 3"):
        load_world(str(tmp_path))


def test_a_new_kind_is_one_table_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[Path, dict[str, Any]]] = []

    def toy(directory: Path, config: dict[str, Any]) -> PerTaskPack:
        seen.append((directory, config))
        if "broken" in config:
            raise ValueError(f"{directory / 'world.toml'}: broken: not a toy")
        return PerTaskPack()

    monkeypatch.setattr(registry, "WORLD_KINDS", MappingProxyType({**registry.WORLD_KINDS, "toy": toy}))
    (tmp_path / "world.toml").write_text('kind = "toy"\nlevel = 2\n')
    assert isinstance(load_world(str(tmp_path)), PerTaskPack)
    assert seen == [(tmp_path, {"kind": "toy", "level": 2})]
    (tmp_path / "world.toml").write_text('kind = "toy"\nbroken = true\n')
    with pytest.raises(WorldLoadError, match="broken: not a toy"):  # a loader's ValueError, as a load error
        load_world(str(tmp_path))


# -- goal tool lists -------------------------------------------------------------------------------------------


def goal(tools: list[str] | None) -> dict[str, Any]:
    gold = [{"name": "set_power", "arguments": {"device_id": "hallway_light", "on": False}}]
    return {"user": {"explicit": "Turn off the hallway light."}, "gold": gold, "tools": tools}


def write(path: Path, *goals: dict[str, Any]) -> Path:
    path.write_text(json.dumps({"id": "t1", "world": "smart_home", "goals": list(goals)}) + "\n")
    return path


def test_a_goal_tool_list_loads_and_defaults_to_the_whole_toolkit(tmp_path: Path) -> None:
    pack = load_world(str(write(tmp_path / "ok.jsonl", goal(["set_power", "list_devices"]), goal(None))))
    first, second = pack.tasks()[0].goals
    assert first.tools == ["set_power", "list_devices"] and second.tools is None


@pytest.mark.parametrize(
    ("tools", "message"),
    [
        (["set_power", "fly"], "task t1: goals.1.tools: no such tool in smart_home: fly"),
        (["list_devices"], "task t1: goals.1.tools: leaves out set_power, which path 0 of the goal calls"),
    ],
)
def test_a_bad_goal_tool_list_names_the_file_and_field(tmp_path: Path, tools: list[str], message: str) -> None:
    path = write(tmp_path / "bad.jsonl", goal(None), goal(tools))
    with pytest.raises(WorldLoadError) as error:
        load_world(str(path))
    assert str(error.value) == f"{path}: {message}"
    (tmp_path / "world.toml").write_text('domain = "smart_home"\ntasks = "bad.jsonl"\n')
    with pytest.raises(WorldLoadError) as error:  # through a world folder: still the task file, not world.toml
        load_world(str(tmp_path))
    assert str(error.value) == f"{path}: {message}"
