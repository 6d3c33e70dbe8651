"""The embedding argument mode, end to end: the offline MiniLM model judges free-text arguments."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from judges.calls.arg_match import ArgMatcher
from judges.calls.core_api import judge_turns
from sim.cli.app import app
from sim.core import EpisodeResult, GoldCall, ToolSpec
from sim.core.embedding import Embedder, embedding_available
from tests.support import traces

pytestmark = [
    pytest.mark.embedding,
    pytest.mark.skipif(embedding_available() is not None, reason=f"embedding model: {embedding_available()}"),
]

NOTE = ToolSpec(
    name="add_note",
    description="",
    parameters={
        "type": "object",
        "properties": {"device_id": {"type": "string", "enum": ["fridge", "tv"]}, "text": {"type": "string"}},
    },
)


def episode(text: str, device: str = "fridge") -> EpisodeResult:
    gold = GoldCall(name="add_note", arguments={"device_id": "fridge", "text": "buy milk tomorrow morning"})
    return traces.episode([traces.turn([gold])], [[("add_note", {"device_id": device, "text": text}, "success")]],
                          [NOTE])  # fmt: skip


def test_paraphrased_free_text_matches_only_in_embedding_mode() -> None:
    embedder = Embedder()
    paraphrase = episode("Buy milk tomorrow morning!")
    unrelated = episode("the garage door code changed")
    wrong_enum = episode("buy milk tomorrow morning", device="tv")
    exact, fuzzy = ArgMatcher("exact"), ArgMatcher("embedding", 0.8, embedder)
    assert not judge_turns(paraphrase, exact)[0].correct
    assert judge_turns(paraphrase, fuzzy)[0].correct
    assert not judge_turns(unrelated, fuzzy)[0].correct
    assert not judge_turns(wrong_enum, fuzzy)[0].correct  # enum-constrained values never match fuzzily
    assert embedder.similarity("Buy milk tomorrow morning!", "buy milk tomorrow morning") > 0.9


def test_rescoring_a_stored_run_in_embedding_mode(tmp_path: Path) -> None:
    cli = CliRunner()
    result = cli.invoke(
        app, ["run", "--agent", "oracle", "--limit", "2", "--out", str(tmp_path), "--run-id", "r", "-q"]
    )
    assert result.exit_code == 0, result.output
    result = cli.invoke(app, ["score", str(tmp_path / "r"), "--arg-match", "embedding"])
    assert result.exit_code == 0, result.output
    assert '"arg_mode":"embedding"' in (tmp_path / "r" / "scores.jsonl").read_text()
    assert "100.0%" in result.output
