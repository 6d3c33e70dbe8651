"""Text that no file can hold: a lone surrogate in a task or persona is refused at load naming the file, line and
field; one arriving at run time (a model's reply may carry an escaped ``\\ud800``) is stored replaced, never a crash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from personas.persona import PersonaError, load_persona
from sim.core import Event, Score
from sim.core.text_check import json_line, scrub, unencodable_field
from sim.store.run_store import RunStore
from tests.support.cli import assert_clean_failure, squall
from tests.support.episodes import result
from worlds.domains.smart_home.pack import DATA_DIR

pytestmark = pytest.mark.reliability  # issue 25's suite


def test_a_task_with_a_lone_surrogate_is_refused_at_load(tmp_path: Path) -> None:
    lines = (DATA_DIR / "tasks.jsonl").read_text().splitlines()[:2]
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(lines[0] + "\n" + lines[1].replace('"id": "', '"id": "\\ud800', 1) + "\n")  # valid JSON
    runs = tmp_path / "runs"
    code, _, err = squall("run", "--agent", "oracle", "--world", str(tasks), "--out", str(runs))
    assert_clean_failure(code, err, "tasks.jsonl:2", "field id", "lone surrogate")
    assert not runs.exists()


def test_a_persona_with_a_lone_surrogate_or_not_utf8_names_the_file(tmp_path: Path) -> None:
    persona = tmp_path / "odd.yaml"
    persona.write_text('name: odd\ndescription: "a \\ud800 b"\n', encoding="utf-8")
    with pytest.raises(PersonaError, match=r"odd\.yaml: field description: text with a lone surrogate"):
        load_persona(str(persona))
    latin = tmp_path / "latin.yaml"
    latin.write_bytes("name: caf\xe9\n".encode("latin-1"))
    with pytest.raises(PersonaError, match=r"latin\.yaml: not UTF-8 text \(byte 9, line 1"):
        load_persona(str(latin))


def test_the_first_unwritable_place_is_named() -> None:
    assert unencodable_field({"a": ["ok", {"b": "x\udfffy"}]}) == "a.1.b"
    assert unencodable_field({"\ud800": 1}) == ""
    assert unencodable_field(["é", "ok", 3, None]) is None
    assert scrub({"k\ud800": ["a\udc00b", 1]}) == {"k\ufffd": ["a\ufffdb", 1]}


def test_a_record_holding_a_surrogate_is_stored_replaced_and_reads_back(tmp_path: Path) -> None:
    score = Score(episode_id="e", task_id="t", trial=0, judge="j", value=1.0, errors=["a\ud800"])
    assert json.loads(json_line(score))["errors"] == ["a\ufffd"]
    episode = result(0).model_copy(update={"events": [Event(kind="agent_message", turn=0, content="reply \ud83d")]})
    store = RunStore.create(tmp_path / "r", {"config_hash": "h"})
    store.append_episode(episode)
    store.append_scores([score])
    [stored] = store.episodes()
    assert stored.events[0].content == "reply \ufffd" and store.scores()[0].errors == ["a\ufffd"]
