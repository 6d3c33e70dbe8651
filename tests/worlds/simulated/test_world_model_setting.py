"""A simulated world's model is a setting: ``squall import openapi|toolbench --model`` writes it into world.toml, a
run's ``--world-model`` overrides it, and ``--cache read-write`` on a world with none is refused before the run
(it would have answered as read-only, silently)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from sim.config.run_config import RunConfig
from sim.core import SimulatedWorldPack
from sim.run.prepare import run_world
from tests.support.cli import assert_clean_failure, squall, tree
from tests.worlds.simulated.world_copy import desk_copy
from worlds.simulated.examples import TICKET_DESK

MODEL = "openai-chat:mock-model@http://127.0.0.1:9/v1"


def test_cache_read_write_needs_a_world_model_and_world_model_gives_one(tmp_path: Path) -> None:
    world = desk_copy(tmp_path, None)
    out = tmp_path / "runs"
    code, _, err = squall("run", "--world", str(world), "--agent", "oracle", "--cache", "read-write", "--out", str(out))
    assert_clean_failure(code, err, "--cache:", "has none: give --world-model MODEL")
    assert not out.exists()
    pack = run_world(RunConfig.model_validate({"world": str(world), "cache": "read-write", "world_model": MODEL}))
    assert isinstance(pack, SimulatedWorldPack) and pack.simulator_model == MODEL
    overridden = desk_copy(tmp_path / "with", "openai-chat:toml-model@http://127.0.0.1:9/v1")
    pack = run_world(RunConfig.model_validate({"world": str(overridden), "world_model": MODEL}))
    assert isinstance(pack, SimulatedWorldPack) and pack.simulator_model == MODEL  # the run's setting wins
    code, _, err = squall("run", "--world", str(world), "--agent", "oracle", "--world-model", MODEL, "--limit", "1",
                          "--out", str(out), "-q")  # fmt: skip
    assert code == 0, err


def test_world_model_on_a_world_no_model_answers_for_is_refused(tmp_path: Path) -> None:
    code, _, err = squall("run", "--world", "smart_home", "--world-model", MODEL, "--out", str(tmp_path))
    assert_clean_failure(code, err, "--world-model:", "'smart_home' is not simulated")
    assert tree(tmp_path) == []


def test_import_writes_the_model_into_world_toml_and_refuses_a_malformed_one(tmp_path: Path) -> None:
    spec = TICKET_DESK / "openapi.yaml"
    code, out, err = squall("import", "openapi", str(spec), "--out", str(tmp_path / "w"), "--model", MODEL)
    assert code == 0, out + err
    assert tomllib.loads((tmp_path / "w" / "world.toml").read_text())["model"] == MODEL
    code, _, err = squall(
        "import", "openapi", str(spec), "--out", str(tmp_path / "bad"), "--model", "openai-chat:m@ftp://x"
    )
    assert code == 2 and "--model" in err and not (tmp_path / "bad").exists()
