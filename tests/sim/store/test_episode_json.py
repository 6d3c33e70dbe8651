"""An episode's store line names its toolkit by reference, and reads back as the record it was: the other fields'
bytes are json_line's, each distinct toolkit is stored once, and lines that cannot be split are stored whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import sim.bench.episode_cpu as bench
from sim.core import EpisodeResult, Event, ToolSpec
from sim.core.text_check import json_line
from sim.store.episode_json import decode_episode, encode_episode
from sim.store.run_store import EpisodeKey
from sim.store.toolkits import TOOLKITS, StoredToolkits
from tests.support.episodes import result


def _played(monkeypatch: pytest.MonkeyPatch, *argv: str) -> list[EpisodeResult]:
    """Real episodes, as the in-process bench plays them (timings included)."""
    results: list[EpisodeResult] = []
    real = bench.run_episode

    async def keep(episode: Any, env: Any) -> EpisodeResult:
        played = await real(episode, env)
        results.append(played)
        return played

    monkeypatch.setattr(bench, "run_episode", keep)
    assert bench.main(list(argv)) == 0
    return results


def _store(folder: Path, results: list[EpisodeResult]) -> list[bytes]:
    """The results' lines, their toolkits appended to ``folder``'s toolkits.jsonl once each (as the writer does)."""
    lines, stored = [], set()
    for record in results:
        encoded = encode_episode(record)
        if encoded.toolkit is not None and encoded.toolkit.sha not in stored:
            stored.add(encoded.toolkit.sha)
            with (folder / TOOLKITS).open("ab") as f:
                f.write(encoded.toolkit.line)
        lines.append(encoded.line)
    return lines


@pytest.mark.parametrize(
    "argv",
    [
        ("--agent", "oracle", "--episodes", "6"),
        ("--agent", "naive", "--episodes", "4", "--stressors", "all"),  # expanded and rewritten toolkits
        ("--world", "multidomain", "--agent", "oracle", "--episodes", "3"),
    ],
)
def test_played_episodes_read_back_as_they_were(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, argv: tuple[str, ...]
) -> None:
    results = _played(monkeypatch, *argv)
    assert results and any(r.tools for r in results)
    for _ in range(2):  # the second time from the kept specs and toolkits
        toolkits = StoredToolkits(tmp_path)
        for played, line in zip(results, _store(tmp_path, results), strict=True):
            whole = json.loads(json_line(played))
            stored = json.loads(line)
            sha = stored.pop("toolkit_ref")
            assert stored == {k: v for k, v in whole.items() if k != "tools"}
            assert [t.model_dump(mode="json") for t in toolkits.tools(sha)] == whole["tools"]
            assert decode_episode(line, EpisodeResult, toolkits) == EpisodeResult.model_validate_json(json_line(played))
        assert len(toolkits.shas()) == len({tuple(t.model_dump_json() for t in r.tools) for r in results})
        (tmp_path / TOOLKITS).unlink()


def test_episodes_with_equal_tools_share_one_toolkit_and_others_have_their_own(tmp_path: Path) -> None:
    spec = ToolSpec(name="f", description="d", parameters={"type": "object", "properties": {"x": {"type": "string"}}})
    same = ToolSpec.model_validate_json(spec.model_dump_json())  # equal, another object
    first = result(1).model_copy(update={"tools": [spec]})
    second = result(2).model_copy(update={"tools": [same], "events": [Event(kind="user_message", turn=0)]})
    third = result(3).model_copy(update={"tools": [spec, spec]})
    refs = [json.loads(line)["toolkit_ref"] for line in _store(tmp_path, [first, second, third, result(4)])]
    assert refs[0] == refs[1] and len(set(refs)) == 3  # result(4): no tools, a toolkit of its own (empty)
    assert len((tmp_path / TOOLKITS).read_text().splitlines()) == 3


def test_lone_surrogate_is_stored_whole_and_reads_back(tmp_path: Path) -> None:
    spec = ToolSpec(name="f", description="bad \ud800 text")
    record = result(1).model_copy(update={"tools": [spec]})
    encoded = encode_episode(record)
    assert encoded.toolkit is None and encoded.line == (json_line(record) + "\n").encode()
    assert "\ufffd" in encoded.line.decode()
    back = decode_episode(encoded.line, EpisodeResult, StoredToolkits(tmp_path))
    assert back.tools[0].description == "bad \ufffd text"
    message = result(2).model_copy(update={"instructions": "bad \udfff"})
    assert encode_episode(message).toolkit is None


def test_a_view_without_tools_reads_a_line_whose_toolkit_is_missing(tmp_path: Path) -> None:
    line = encode_episode(result(5)).line  # its toolkit never stored
    assert decode_episode(line, EpisodeKey, StoredToolkits(tmp_path)).episode_id == "t5#0"
