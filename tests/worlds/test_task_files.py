"""Task files and the world registry: loading, and errors that say file, place and field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from worlds.registry import BUILTIN_WORLDS, WorldLoadError, known_worlds, load_world
from worlds.task_files import TaskFileError, load_tasks


def task(task_id: str, world: str = "smart_home", **turn: Any) -> dict[str, Any]:
    gold = [{"name": "set_power", "arguments": {"device_id": "hallway_light", "on": False}}]
    return {
        "id": task_id,
        "world": world,
        "turns": [{"user": {"explicit": "Turn off the hallway light."}, "gold": gold, **turn}],
    }


def write_jsonl(path: Path, *items: Any) -> Path:
    path.write_text("\n".join(json.dumps(item) for item in items) + "\n")
    return path


# -- task files ----------------------------------------------------------------------------------


def test_loads_jsonl_and_json(tmp_path: Path) -> None:
    jsonl = tmp_path / "tasks.jsonl"
    jsonl.write_text(json.dumps(task("a")) + "\n\n" + json.dumps(task("b")) + "\n")
    assert [t.id for t in load_tasks(jsonl)] == ["a", "b"]
    listed = tmp_path / "tasks.json"
    listed.write_text(json.dumps([task("a"), task("b")], indent=2))
    assert load_tasks(listed) == load_tasks(jsonl)


def test_jsonl_error_names_file_line_and_field(tmp_path: Path) -> None:
    broken = task("c")
    broken["turns"][0]["gold"].append({"arguments": {}})
    path = write_jsonl(tmp_path / "tasks.jsonl", task("a"), task("b"), broken)
    with pytest.raises(TaskFileError) as error:
        load_tasks(path)
    assert str(error.value) == f"{path}:3: turns.0.gold.1.name: Field required"


def test_json_error_names_list_index_and_every_field(tmp_path: Path) -> None:
    broken = task("b", gold_answer=3)
    del broken["world"]
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps([task("a"), broken]))
    with pytest.raises(TaskFileError) as error:
        load_tasks(path)
    lines = str(error.value).splitlines()
    assert f"{path}[1]: world: Field required" in lines
    assert f"{path}[1]: turns.0.gold_answer: Input should be a valid string" in lines


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("tasks.jsonl", '{"id": "a"\n', ":1: invalid JSON"),
        ("tasks.jsonl", json.dumps(task("a")) + "\n[1, 2]\n", ":2: Input should be a valid dictionary"),
        ("tasks.jsonl", json.dumps(task("a", extra=1)) + "\n", ":1: turns.0.extra: Extra inputs are not permitted"),
        ("tasks.jsonl", json.dumps({**task("a"), "turns": []}) + "\n", ":1: turns: List should have at least 1 item"),
        ("tasks.jsonl", "\n\n", ": no tasks"),
        ("tasks.json", '[\n  {"id": \n', ":3: invalid JSON"),
        ("tasks.json", json.dumps(task("a")), "holds a list of tasks, not a dict"),
        ("tasks.yaml", "- id: a\n", "task files end in .json or .jsonl"),
    ],
)
def test_bad_files(tmp_path: Path, name: str, text: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(TaskFileError) as error:
        load_tasks(path)
    assert str(path) in str(error.value)
    assert message in str(error.value)


def test_duplicate_ids_name_both_places(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "tasks.jsonl", task("a"), task("b"), task("a"))
    with pytest.raises(TaskFileError, match=r"tasks\.jsonl:3: duplicate task id 'a' \(first at .*tasks\.jsonl:1\)"):
        load_tasks(path)


def test_missing_file_is_a_task_file_error(tmp_path: Path) -> None:
    with pytest.raises(TaskFileError, match="cannot read"):
        load_tasks(tmp_path / "absent.jsonl")
    assert issubclass(TaskFileError, ValueError)


# -- registry ------------------------------------------------------------------------------------


def test_builtin_name() -> None:
    pack = load_world("smart_home")
    assert pack.name == "smart_home" and len(pack.tasks()) == 10
    assert (
        known_worlds()
        == ["account_unlock", "multidomain", "smart_home", "sql_sample", "ticket_desk"]
        == sorted(BUILTIN_WORLDS)
    )


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(
        WorldLoadError, match="unknown world 'bank'; known worlds: account_unlock, multidomain, smart_home"
    ):
        load_world("bank")
    assert issubclass(WorldLoadError, ValueError)


async def test_task_file_spec_serves_its_tasks_over_the_builtin_tools(tmp_path: Path) -> None:
    pack = load_world(str(write_jsonl(tmp_path / "mine.jsonl", task("mine-1"), task("mine-2"))))
    assert pack.name == "smart_home"
    assert [t.id for t in pack.tasks()] == ["mine-1", "mine-2"]
    assert {s.name for s in pack.new_world(seed=0).specs()} >= {"set_power", "activate_scene"}


def test_directory_spec(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "set.jsonl", task("dir-1"))
    (tmp_path / "world.toml").write_text('domain = "smart_home"\ntasks = "set.jsonl"\n')
    assert [t.id for t in load_world(str(tmp_path)).tasks()] == ["dir-1"]
    (tmp_path / "world.toml").write_text('domain = "smart_home"\n')
    assert len(load_world(str(tmp_path)).tasks()) == 10  # no tasks key: the domain's own


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({}, "needs a world.toml"),
        ({"world.toml": "domain = "}, "world.toml: "),
        (
            {"world.toml": 'domain = "bank"'},
            "unknown domain 'bank'; known worlds: account_unlock, multidomain, smart_home",
        ),
        ({"world.toml": "domain = 3"}, "'domain' must name a built-in world"),
        ({"world.toml": 'domain = "smart_home"\nseed = 1'}, "unknown key(s) seed"),
        ({"world.toml": 'domain = "smart_home"\ntasks = "gone.jsonl"'}, "gone.jsonl does not exist"),
        (
            {"world.toml": 'domain = "smart_home"\ntasks = "t.jsonl"', "t.jsonl": "{}\n"},
            "t.jsonl:1: id: Field required",
        ),
    ],
)
def test_bad_directories(tmp_path: Path, files: dict[str, str], message: str) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(WorldLoadError) as error:
        load_world(str(tmp_path))
    assert message in str(error.value)


@pytest.mark.parametrize(
    ("items", "message"),
    [
        (
            [task("a", world="bank")],
            "tasks name unknown world 'bank'; known worlds: account_unlock, multidomain, smart_home",
        ),
        ([task("a"), task("b", world="bank")], "tasks name several worlds (bank, smart_home)"),
        ([task("a"), {"id": "b"}], "bad.jsonl:2: world: Field required"),
        ([{**task("a"), "turns": [{"user": {"explicit": "x"}, "gold": [{"name": "fly"}]}]}], "no such tool"),
    ],
)
def test_bad_task_file_specs(tmp_path: Path, items: list[Any], message: str) -> None:
    path = write_jsonl(tmp_path / "bad.jsonl", *items)
    with pytest.raises(WorldLoadError) as error:
        load_world(str(path))
    assert message in str(error.value)
    assert str(path) in str(error.value)


def test_missing_task_file_spec(tmp_path: Path) -> None:
    with pytest.raises(WorldLoadError, match="no such task file"):
        load_world(str(tmp_path / "nope.json"))
