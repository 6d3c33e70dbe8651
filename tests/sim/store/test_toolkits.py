"""toolkits.jsonl: episodes name their toolkit, a reader finds it (also one stored after the reader started), and a
reference to none, a corrupt toolkit or a record that is no episode is an error naming file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim.core import EpisodeResult
from sim.store.episode_json import encode_episode
from sim.store.run_store import EPISODES, RunStore, StoreError
from sim.store.toolkits import TOOLKITS, StoredToolkits, ToolkitError
from tests.support.episodes import with_toolkit


def _run(tmp_path: Path, *records: EpisodeResult) -> RunStore:
    store = RunStore.create(tmp_path / "r", {"config_hash": "h"})
    for record in records:
        store.append_episode(record)
    return store


def test_a_run_stores_each_toolkit_once_and_reads_its_episodes_back(tmp_path: Path) -> None:
    records = [with_toolkit(i, i % 2 + 1) for i in range(4)]
    store = _run(tmp_path, *records)
    assert len((store.root / TOOLKITS).read_text().splitlines()) == 2
    assert store.episodes() == [EpisodeResult.model_validate_json(r.model_dump_json()) for r in records]
    assert store.episodes()[0].tools[0] is store.episodes()[2].tools[0]  # one toolkit parsed, shared


def test_a_toolkit_stored_after_the_reader_started_is_found(tmp_path: Path) -> None:
    store = _run(tmp_path, with_toolkit(0, 1))
    reader = RunStore.open_existing(store.root)
    assert len(reader.episodes()) == 1
    line = encode_episode(with_toolkit(1, 3))
    assert line.toolkit is not None
    with (store.root / TOOLKITS).open("ab") as f:
        f.write(line.toolkit.line[:50])  # a writer mid-line: not a toolkit yet
    assert reader.toolkits.shas() == {encode_episode(with_toolkit(0, 1)).toolkit.sha}  # type: ignore[union-attr]
    with (store.root / TOOLKITS).open("ab") as f:
        f.write(line.toolkit.line[50:])
    with (store.root / EPISODES).open("ab") as f:
        f.write(line.line)
    assert [len(ep.tools) for ep in reader.iter_episodes()] == [1, 3]


def test_a_reference_to_no_stored_toolkit_names_the_line(tmp_path: Path) -> None:
    store = _run(tmp_path, with_toolkit(0, 1))
    with (store.root / EPISODES).open("ab") as f:
        f.write(encode_episode(with_toolkit(1, 2)).line)  # its toolkit never stored
    with pytest.raises(StoreError, match=r"episodes\.jsonl:2: .*toolkits\.jsonl: no toolkit [0-9a-f]{64}"):
        store.episodes()


@pytest.mark.parametrize(
    ("change", "error"),
    [
        (lambda line: line.replace(b'"f0"', b'"g0"'), r"toolkits\.jsonl:1: toolkit .* does not match its content"),
        (lambda line: line.replace(b'{"sha":"', b'{"sha": "'), r"toolkits\.jsonl:1: not a toolkit record"),
        (lambda line: line[:8] + b"X" + line[9:], r"toolkits\.jsonl:1: not a toolkit record \(its sha is not hex\)"),
    ],
    ids=["content changed", "not written by squall", "sha not hex"],
)
def test_a_corrupt_toolkit_is_an_error_naming_its_line(tmp_path: Path, change: object, error: str) -> None:
    store = _run(tmp_path, with_toolkit(0, 1))
    path = store.root / TOOLKITS
    path.write_bytes(change(path.read_bytes()))  # type: ignore[operator]
    with pytest.raises(StoreError, match=error):
        RunStore.open_existing(store.root).episodes()


@pytest.mark.parametrize("both", [True, False], ids=["tools and a reference", "neither"])
def test_an_episode_needs_its_tools_inline_or_by_reference(tmp_path: Path, both: bool) -> None:
    store = _run(tmp_path, with_toolkit(0, 1))
    record = json.loads((store.root / EPISODES).read_text())
    if both:
        record["tools"] = []
    else:
        del record["toolkit_ref"]
    (store.root / EPISODES).write_text(json.dumps(record) + "\n")
    with pytest.raises(StoreError, match=f"episodes.jsonl:1: .*{'both' if both else 'neither'}"):
        store.episodes()


def test_inline_tools_of_runs_from_before_toolkits_read_as_ever(tmp_path: Path) -> None:
    store = _run(tmp_path)
    record = with_toolkit(0, 2)
    (store.root / EPISODES).write_text(record.model_dump_json() + "\n")
    assert store.episodes() == [record] and not (store.root / TOOLKITS).exists()


def test_the_reader_keeps_a_few_parsed_toolkits(tmp_path: Path) -> None:
    store = _run(tmp_path, *(with_toolkit(i, i + 1) for i in range(3)))
    toolkits = StoredToolkits(store.root, keep=2)
    first, second, third = (encode_episode(with_toolkit(0, n)).toolkit.sha for n in (1, 2, 3))  # type: ignore[union-attr]
    kept = toolkits.tools(first)
    assert toolkits.tools(first) is kept
    toolkits.tools(second), toolkits.tools(third)
    assert toolkits.tools(first) is not kept and toolkits.tools(first) == kept  # dropped, parsed again
    with pytest.raises(ToolkitError, match=r"no toolkit 0{64}"):
        toolkits.tools("0" * 64)


def test_resume_cuts_a_toolkit_cut_short_by_a_crash(tmp_path: Path) -> None:
    store = _run(tmp_path, with_toolkit(0, 1))
    store.close()
    whole = (store.root / TOOLKITS).read_bytes()
    toolkit = encode_episode(with_toolkit(1, 2)).toolkit
    assert toolkit is not None
    with (store.root / TOOLKITS).open("ab") as f:
        f.write(toolkit.line[:-9])  # killed mid-write: no episode names it yet
    resumed = RunStore.resume(store.root, "h")
    assert (store.root / TOOLKITS).read_bytes() == whole
    resumed.append_episode(with_toolkit(1, 2))
    assert [len(ep.tools) for ep in resumed.iter_episodes()] == [1, 2]
