"""A tiny simulated API and a scripted model handle for the simulated world's tests."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sim.core import ModelRequest, ModelResponse, Task
from worlds.simulated.cache import ResponseStore
from worlds.simulated.operations import ApiOperation, ApiSpec
from worlds.simulated.world import SimulatedPack

GET_ARGS = {"noteId": {"type": "string"}, "limit": {"type": "integer", "default": 10}}
NOTE = {
    "type": "object",
    "required": ["id", "text"],
    "properties": {"id": {"type": "string"}, "text": {"type": "string"}},
}
SPEC = ApiSpec(
    name="notes",
    title="Notes",
    source="openapi",
    operations=(
        ApiOperation(
            name="getNote", method="get", path="/notes/{noteId}", description="One note by id.",
            parameters={"type": "object", "required": ["noteId"], "properties": GET_ARGS},
            locations={"noteId": "path", "limit": "query"}, response_schema=NOTE, writes=False, source="t#/get",
        ),
        ApiOperation(
            name="createNote", method="post", path="/notes", description="Create a note; returns it with its id.",
            parameters={"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}},
            locations={"text": "body"}, response_schema=NOTE, writes=True, source="t#/post",
        ),
    ),
)  # fmt: skip


class ScriptedLLM:
    """Answers each request with the next text of ``replies`` (the last one repeats); records the requests."""

    steps = 0

    def __init__(self, replies: Sequence[str]) -> None:
        self.replies = list(replies)
        self.requests: list[ModelRequest] = []

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        return ModelResponse(text=self.replies[min(len(self.requests), len(self.replies)) - 1])


def ok(body: Any, status: int = 200) -> str:
    return json.dumps({"status": status, "body": body})


def pack(folder: Path, tasks: Sequence[Task] = (), model: str | None = "test-model") -> SimulatedPack:
    return SimulatedPack(SPEC, tasks, ResponseStore(folder / "cache"), model)
