"""Model-written neighbours: proposals checked and counted, filtered like templated ones, kept across rebuilds.

Models are scripted: an in-process handle for the pipeline, the mock OpenAI server for the command end to end (which
also needs the real embedder, and skips without it). The filter is exercised offline with a word-hashing encoder.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sim.cli.expand import main
from sim.core import ModelRequest, ModelResponse
from sim.core.embedding import Embedder, embedding_available
from tests.support.mockllm_server import mock_llm_server
from worlds.registry import load_world
from worlds.stressors.expand.build import build_catalog, catalog_path, model_written
from worlds.stressors.expand.model_written import model_candidates
from worlds.stressors.expand.toolkit import ExpandCatalog

SPECS = load_world("smart_home").new_world(0).specs()
SCHEDULE_SCENE = {
    "source": "activate_scene",
    "name": "queue_scene_for_sunset",
    "description": "Queue a scene to be applied automatically at the next sunset; returns a queue id.",
    "parameters": {"type": "object", "properties": {"scene_id": {"type": "string"}}, "required": ["scene_id"]},
    "answer": {"kind": "ack", "key": "queue", "status": "queued"},
}
ROOM_CLIMATE = {
    "source": "list_rooms",
    "name": "list_room_sensors",
    "description": "Temperature and humidity sensors installed in each room.",
    "parameters": {"type": "object", "properties": {}},
    "answer": {"kind": "listing", "key": "sensors"},
}
BAD = [
    {**ROOM_CLIMATE, "name": "list rooms!"},  # bad_name
    {**ROOM_CLIMATE, "name": "list_devices"},  # name_taken (an original)
    {**ROOM_CLIMATE, "name": "list_floors", "source": "list_floors"},  # unknown_source
    {**ROOM_CLIMATE, "name": "list_zones", "answer": {"kind": "delete_everything"}},  # bad_answer
    {**ROOM_CLIMATE, "name": "list_walls", "parameters": {"type": "object", "required": ["x"]}},  # bad_parameters
    {**SCHEDULE_SCENE, "name": "queue_scene_twice", "answer": {"kind": "ack"}},  # bad_answer: no key or status
    "a string",  # not_an_object
]
NEAR_COPY = {  # the filter's job: a renamed copy of an original is not a different tool
    "source": "lock_door",
    "name": "lock_the_door",
    "description": "Lock a door lock.",
    "parameters": {"type": "object", "properties": {"device_id": {"type": "string"}}, "required": ["device_id"]},
    "answer": {"kind": "ack", "key": "lock_request", "status": "sent"},
}


class ScriptedLLM:
    """An LLMHandle answering each request by its ``Request:`` line; what ``reply`` raises is a provider fault."""

    def __init__(self, reply: Callable[[str], str]) -> None:
        self.steps = 0
        self.reply = reply
        self.requests: list[ModelRequest] = []

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        return ModelResponse(text=self.reply(request.messages[1].content.splitlines()[0]))


def good_bad_prose_or_down(line: str) -> str:
    """The batch of list_rooms: good and bad proposals; of lock_door: prose; any other: the provider is down."""
    if "list_rooms" in line:
        return "```json\n" + json.dumps({"tools": [SCHEDULE_SCENE, ROOM_CLIMATE, *BAD]}) + "```"
    if "lock_door" in line:
        return "Sure, here are some ideas: a door camera, a doorbell."
    raise ConnectionError("provider down")


async def test_proposals_are_checked_counted_and_their_read_only_follows_the_answer() -> None:
    llm = ScriptedLLM(good_bad_prose_or_down)
    report = await model_candidates(llm, "scripted", SPECS, per_tool=2, batch=6)
    assert report.requests == 3 == len(llm.requests) and report.request_failures == 1
    assert all(r.role == "generator" and r.temperature == 0 and r.seed == 0 for r in llm.requests)
    assert [c.spec.name for c in report.accepted] == ["queue_scene_for_sunset", "list_room_sensors"]
    assert report.proposed == 2 + len(BAD)
    assert dict(report.dropped) == {
        "bad_name": 1,
        "name_taken": 1,
        "unknown_source": 1,
        "bad_answer": 2,
        "bad_parameters": 1,
        "not_an_object": 1,
        "unparseable_reply": 1,
    }
    ack, listing = report.accepted
    assert not ack.spec.read_only and listing.spec.read_only and ack.origin == "model:scripted"


class WordEncoder:
    """A torch-free stand-in for the embedder: hashed bag of words, unit length."""

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        rows = np.zeros((len(texts), 512), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                rows[i, int(hashlib.sha256(word.encode()).hexdigest()[:8], 16) % 512] += 1
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


async def test_model_written_neighbours_go_through_the_same_filter_and_survive_a_rebuild() -> None:
    llm = ScriptedLLM(lambda _line: json.dumps({"tools": [SCHEDULE_SCENE, NEAR_COPY]}))
    extra = (await model_candidates(llm, "scripted", SPECS, batch=len(SPECS))).accepted
    assert len(extra) == 2
    catalog = build_catalog("smart_home", SPECS, WordEncoder(), extra=extra)
    kept = {c.spec.name: c for c in catalog.candidates}
    assert "queue_scene_for_sunset" in kept and kept["queue_scene_for_sunset"].origin == "model:scripted"
    assert [r.name for r in catalog.rejected if r.origin.startswith("model:")] == ["lock_the_door"]
    assert all((c.similarity or 0) < 0.8 for c in catalog.candidates)
    carried = model_written(catalog)
    assert [c.spec.name for c in carried] == ["queue_scene_for_sunset"]
    again = build_catalog("smart_home", SPECS, WordEncoder(), extra=carried)
    assert again == catalog.model_copy(update={"rejected": [r for r in catalog.rejected if r.name != "lock_the_door"]})


@pytest.mark.embedding
@pytest.mark.slow
def test_the_command_asks_the_mock_model_writes_a_catalog_and_checks_it(tmp_path: Path, capsys: Any) -> None:
    if (reason := embedding_available()) is not None:
        pytest.skip(f"embeddings unavailable: {reason}")
    policy = {
        "kind": "script",
        "steps": [{"text": '{"tools": []}'}],
        "by_user": {"Request: expand tools=list_rooms": [{"text": json.dumps({"tools": [SCHEDULE_SCENE]})}]},
    }
    args = ["--world", "smart_home", "--out", str(tmp_path), "--cache-dir", str(tmp_path / "cache")]
    embedder = Embedder()  # one for the three builds: its cache makes the later ones instant
    with mock_llm_server({"policy": policy}) as srv:
        assert main([*args, "--model", f"openai-chat:mock@{srv.url}"], embedder) == 0
        assert srv.stats()["completions"] == 2  # 16 tools, 8 per request
    out = capsys.readouterr().out
    assert "2 requests (0 failed), 1 proposed, 1 well-formed" in out
    path = catalog_path("smart_home", tmp_path)
    written = ExpandCatalog.model_validate_json(path.read_text())
    assert [c.spec.name for c in model_written(written)] == ["queue_scene_for_sunset"]
    assert main([*args, "--check"], embedder) == 0  # a rebuild without the model keeps what it wrote
    assert main([*args, "--check", "--fresh"], embedder) == 1
    assert [p.name for p in tmp_path.iterdir() if p.is_file()] == ["smart_home.json"]
