"""Issue 25, item 7: the endpoint's address is not the run's identity (the model is); runs stored with the older
hash (base URL included) still resume, on their old endpoint or a new one."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.config.run_config import RunConfig
from sim.run.prepare import manifest
from sim.run.resume_identity import note_endpoint, same_run
from sim.store.run_store import RunStore, StoreError

pytestmark = pytest.mark.reliability

OLD_PORT, NEW_PORT = "openai-chat:m@http://127.0.0.1:8765/v1", "text:openai-chat:m@http://127.0.0.1:40211/v1"


def test_the_hash_keeps_the_model_but_not_its_address() -> None:
    old = RunConfig(agent=f"text:{OLD_PORT}", user="llm", user_model=OLD_PORT)
    moved = RunConfig(agent=NEW_PORT, user="llm", user_model="openai-chat:m@https://mirror.example/v1")
    assert old.config_hash() == moved.config_hash()
    assert old.config_hash(with_endpoint=True) != moved.config_hash(with_endpoint=True)
    other_model = RunConfig(agent="text:openai-chat:other@http://127.0.0.1:8765/v1", user="llm", user_model=OLD_PORT)
    assert other_model.config_hash() != old.config_hash()
    bare = RunConfig(agent="text:openai-chat:m", user="llm", user_model="openai-chat:m")
    assert bare.config_hash() == old.config_hash()  # the model, wherever it is served
    stored_default = RunConfig(max_tokens=512)  # the default of runs stored before no cap became the default
    assert stored_default.config_hash() == stored_default.config_hash(with_endpoint=True) == "d89c00a3ccb91ee9"


def _stored_before_the_change(tmp_path: Path, config: RunConfig) -> Path:
    """A run folder whose manifest carries the older hash form, as runs stored before this change do."""
    stored = manifest(config, "r", 1) | {"config_hash": config.config_hash(with_endpoint=True)}
    RunStore.create(tmp_path / "r", stored).close()
    return tmp_path / "r"


def test_an_old_manifest_resumes_on_its_endpoint_or_a_new_one_and_the_move_is_recorded(tmp_path: Path) -> None:
    before = RunConfig(agent=f"text:{OLD_PORT}")
    root = _stored_before_the_change(tmp_path, before)
    assert before.config_hash() != before.config_hash(with_endpoint=True)  # really the older form
    RunStore.resume(root, before.config_hash(), same_run(before)).close()

    moved = RunConfig(agent=NEW_PORT)
    store = RunStore.resume(root, moved.config_hash(), same_run(moved))
    note_endpoint(store, moved)
    store.close()
    written = RunStore.open_existing(root).manifest()
    assert written["config"]["agent"] == NEW_PORT and written["config_hash"] == moved.config_hash()
    assert [(h["from"], h["to"]) for h in written["endpoint_history"]] == [
        ({"agent": f"text:{OLD_PORT}"}, {"agent": NEW_PORT})
    ]
    RunStore.resume(root, moved.config_hash(), same_run(moved)).close()  # the next resume matches at once


def test_another_model_or_setting_is_still_refused(tmp_path: Path) -> None:
    root = _stored_before_the_change(tmp_path, RunConfig(agent=f"text:{OLD_PORT}"))
    for other in (RunConfig(agent="text:openai-chat:m2@http://127.0.0.1:8765/v1"), RunConfig(agent=NEW_PORT, seed=1)):
        with pytest.raises(StoreError, match="config_hash"):
            RunStore.resume(root, other.config_hash(), same_run(other))
