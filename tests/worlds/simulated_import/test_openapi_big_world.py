"""A big spec stays small as a world: shared component schemas are stored once (operations.json's ``schemas``) and
attached to every operation on load as the same objects; old folders (a copy per operation) still load; --include
and --exclude choose operations by tag, path glob and operation id, naming a selector that matches nothing; a
toolkit past a model's context is warned about at import and at run start, with its token count."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from sim.agents.agent_view import AgentView
from sim.bench.big_spec import big_spec
from sim.bench.tool_tokens import tools_tokens
from sim.llm.tool_budget import toolkit_bytes, toolkit_tokens
from tests.support.cli import assert_clean_failure, squall
from worlds.simulated.folder import load_simulated_folder
from worlds.simulated.operations import ApiSpec

SMALL = {"operations": 20, "objects": 24, "levels": 4, "enums": 6}
"""Deep enough that most operations' schemas pass the inline bound and share their parts."""


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("big")
    spec = root / "discord_shaped.json"
    spec.write_text(json.dumps(big_spec(**SMALL), indent=1), encoding="utf-8")
    out = root / "world"
    code, _, err = squall("import", "openapi", str(spec), "--out", str(out))
    assert code == 0, err
    return spec, out


def load(folder: Path) -> ApiSpec:
    config = tomllib.loads((folder / "world.toml").read_text(encoding="utf-8"))
    return load_simulated_folder(folder, config).spec


def test_shared_schemas_are_stored_once_and_attached_by_reference(world: tuple[Path, Path]) -> None:
    spec, out = world
    stored: dict[str, Any] = json.loads((out / "operations.json").read_text(encoding="utf-8"))
    assert (out / "operations.json").stat().st_size < 3 * spec.stat().st_size
    assert not any('"$defs":' in json.dumps(operation) for operation in stored["operations"])  # references only
    assert "Thing0Response" in stored["schemas"] and "SnowflakeType" in stored["schemas"]
    api = load(out)
    carrying = [op for op in api.operations if "$defs" in (op.response_schema or {})]
    assert len(carrying) >= 10
    first, second = carrying[0].response_schema, carrying[1].response_schema
    assert first is not None and second is not None
    common = set(first["$defs"]) & set(second["$defs"])
    assert common and all(first["$defs"][name] is second["$defs"][name] for name in common)  # one object in memory
    assert all(first["$defs"][name] is api.schemas[name] for name in first["$defs"])
    assert api.stored() == stored


def test_an_old_folder_with_a_copy_per_operation_still_loads(world: tuple[Path, Path], tmp_path: Path) -> None:
    _, out = world
    api = load(out)
    old = tmp_path / "old"
    old.mkdir()
    for name in ("world.toml", "tasks.jsonl"):
        (old / name).write_text((out / name).read_text(encoding="utf-8"), encoding="utf-8")
    (old / "cache").mkdir()
    every_copy = api.model_dump(mode="json", exclude={"schemas"})  # the layout before shared schemas
    (old / "operations.json").write_text(json.dumps(every_copy), encoding="utf-8")
    assert load(old).operations == api.operations


def test_the_token_estimate_counts_each_shared_schema_per_tool(world: tuple[Path, Path]) -> None:
    tools = [operation.tool_spec() for operation in load(world[1]).operations]
    whole = tools_tokens(tools, AgentView())  # the request's tools, encoded in one piece
    assert abs(toolkit_tokens(tools) - whole) < 0.02 * whole
    assert toolkit_bytes(tools) >= toolkit_tokens(tools)  # the bound that spares small worlds the tokenizer


def selected(spec: Path, out: Path, *selectors: str) -> list[str]:
    code, stdout, err = squall("import", "openapi", str(spec), "--out", str(out), *selectors)
    assert code == 0, err
    report = json.loads((out / "import_report.json").read_text(encoding="utf-8"))
    names = [operation.name for operation in load(out).operations]
    assert report["left_out_by_selection"] == SMALL["operations"] - len(names)
    assert f"{len(names)} operations" in stdout
    return names


def test_include_and_exclude_choose_by_tag_path_and_operation_id(world: tuple[Path, Path], tmp_path: Path) -> None:
    spec, _ = world
    by_tag = selected(spec, tmp_path / "tag", "--include", "Guilds")
    assert by_tag == ["get_guilds_item_0", "put_guilds_item_18"]
    by_path = selected(spec, tmp_path / "path", "--include", "/roles/*", "--include", "patch_messages_item_2")
    assert by_path == ["patch_messages_item_2", "patch_roles_item_7"]
    excluded = selected(spec, tmp_path / "ex", "--exclude", "get_*", "--exclude", "Channels")
    assert len(excluded) == 14 and not any(name.startswith("get_") or "channels" in name for name in excluded)


def test_a_selector_matching_nothing_is_named_and_nothing_is_written(world: tuple[Path, Path], tmp_path: Path) -> None:
    spec, _ = world
    out = tmp_path / "w"
    code, _, err = squall("import", "openapi", str(spec), "--out", str(out), "--include", "Guild", "--include", "Users")
    assert_clean_failure(code, err, "--include 'Guild' matches no operation", "tags: Applications")
    assert not out.exists()


def test_a_toolkit_past_the_context_is_warned_at_import_and_run_start(
    world: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, _ = world
    monkeypatch.setattr("sim.llm.tool_budget.CONTEXT_TOKENS", 2_000)
    out = tmp_path / "w"
    code, _, err = squall("import", "openapi", str(spec), "--out", str(out), "--include", "Guilds")
    line = " ".join(err.split())
    tokens = toolkit_tokens([operation.tool_spec() for operation in load(out).operations])
    assert code == 0 and f"warning: world w: its 2 tools cost about {tokens:,} prompt tokens" in line
    assert "--include/--exclude" in line and "--stressors search" in line
    desk = Path("worlds/simulated/examples/ticket_desk")
    run = ("run", "--world", str(desk), "--agent", "null", "--out", str(tmp_path / "runs"), "-q", "--trials", "1")
    monkeypatch.setattr("sim.llm.tool_budget.CONTEXT_TOKENS", 100)
    code, _, err = squall(*run, "--run-id", "all")
    assert code == 0 and "warning: world worlds/simulated/examples/ticket_desk: its 12 tools cost" in err
    code, _, err = squall(*run, "--run-id", "searched", "--stressors", "search")
    assert code == 0 and "warning" not in err  # tool search offers two tools, not the toolkit


def test_the_bench_prints_every_measurement_of_its_arm(capsys: pytest.CaptureFixture[str]) -> None:
    from sim.bench.big_world import ROWS, main

    main(["--operations", "10"])
    printed = capsys.readouterr().out
    assert all(label in printed for _, label, _ in ROWS) and "10 operations stored, 0 skipped, 10 tools" in printed
    ratio = next(line for line in printed.splitlines() if line.startswith("folder / spec"))
    assert float(ratio.split()[-1].rstrip("x")) < 10
