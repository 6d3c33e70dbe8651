"""The simulated world: strict argument checks, the canonical cache, the model on a miss, retries, memory."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

from sim.core import EpisodeResult, Event, Goal, GoldCall, Task, ToolCall, ToolResult, UserIntent, WorldContext
from sim.core.trace import CACHE_MISS_CODE
from tests.worlds.simulated.support import ScriptedLLM, ok, pack
from worlds.simulated.cache import CachedResponse, ResponseStore
from worlds.simulated.canonical import canonical_json
from worlds.simulated.simulate import ATTEMPTS
from worlds.simulated.world import NOT_CACHED, SIMULATION_FAILED

NOTE = {"id": "n-1", "text": "hi"}


def call(name: str, **arguments: object) -> ToolCall:
    return ToolCall(id="c1", name=name, arguments=arguments)


def context(llm: ScriptedLLM | None, mode: str | None = "read-write") -> WorldContext:
    return WorldContext(llm=llm, cache_mode=mode)


def test_canonical_json_sorts_keys_and_normalises_numbers() -> None:
    assert (
        canonical_json({"b": 1.0, "a": [2.0, 2.5]}) == canonical_json({"a": [2, 2.5], "b": 1}) == '{"a":[2,2.5],"b":1}'
    )


async def test_bad_arguments_are_refused_like_a_strict_server_and_never_reach_the_model(tmp_path: Path) -> None:
    llm = ScriptedLLM([ok(NOTE)])
    world = pack(tmp_path).new_world(0, context(llm))
    missing = await world.call(call("getNote"))
    unknown = await world.call(call("getNote", noteId="n-1", colour="red"))
    mistyped = await world.call(call("getNote", noteId="n-1", limit="ten"))
    assert [r.status for r in (missing, unknown, mistyped)] == ["invalid_arguments"] * 3
    assert (missing.error_code, unknown.error_code, mistyped.error_code) == (
        "missing_argument", "unexpected_argument", "wrong_type",
    )  # fmt: skip
    assert llm.requests == []


async def test_a_miss_asks_the_model_once_and_the_cache_answers_after(tmp_path: Path) -> None:
    llm = ScriptedLLM([ok(NOTE)])
    first = await pack(tmp_path).new_world(0, context(llm)).call(call("getNote", noteId="n-1", limit=5.0))
    assert first.ok and first.content == NOTE and len(llm.requests) == 1
    request = llm.requests[0]
    assert request.role == "world" and request.seed is not None and "GET /notes/{noteId}" in request.messages[1].content
    assert '"path": "/notes/n-1"' in request.messages[1].content  # the request as the service receives it
    # A fresh pack reads the file: same call written differently (5 == 5.0, key order) is a hit.
    again = await pack(tmp_path).new_world(7, context(llm)).call(call("getNote", limit=5, noteId="n-1"))
    assert again == first and len(llm.requests) == 1
    stored = json.loads((tmp_path / "cache" / "getNote.json").read_text())
    assert stored["entries"][0]["arguments"] == {"limit": 5, "noteId": "n-1"} and stored["operation"] == "getNote"


async def test_invalid_answers_are_retried_with_the_error_then_classified(tmp_path: Path) -> None:
    llm = ScriptedLLM(["not json", ok({"id": 3}), ok(NOTE)])
    result = await pack(tmp_path).new_world(0, context(llm)).call(call("getNote", noteId="n-1"))
    assert result.ok and len(llm.requests) == 3
    assert "does not match the response schema" in llm.requests[2].messages[-1].content
    failing = ScriptedLLM(["nope"])
    result = await pack(tmp_path).new_world(0, context(failing)).call(call("getNote", noteId="n-2"))
    assert result.status == "unavailable" and result.error_code == SIMULATION_FAILED
    assert len(failing.requests) == ATTEMPTS
    # The failure is cached: replayed with no request; a warm-up (retry_failures) asks again and replaces it.
    again = pack(tmp_path).new_world(0, context(failing))
    assert (await again.call(call("getNote", noteId="n-2"))).error_code == SIMULATION_FAILED
    assert len(failing.requests) == ATTEMPTS
    fixed = pack(tmp_path)
    fixed.runtime.retry_failures = True
    assert (await fixed.new_world(0, context(ScriptedLLM([ok(NOTE)]))).call(call("getNote", noteId="n-2"))).ok
    assert (await pack(tmp_path).new_world(0, context(None)).call(call("getNote", noteId="n-2"))).ok


async def test_a_documented_default_left_out_is_the_same_call(tmp_path: Path) -> None:
    llm = ScriptedLLM([ok(NOTE)])
    world = pack(tmp_path).new_world(0, context(llm))
    assert (await world.call(call("getNote", noteId="n-1"))) == (
        await world.call(call("getNote", noteId="n-1", limit=10))
    )
    assert len(llm.requests) == 1


async def test_a_modelled_404_is_a_not_found_result(tmp_path: Path) -> None:
    llm = ScriptedLLM([ok({"message": "no such note"}, status=404)])
    result = await pack(tmp_path).new_world(0, context(llm)).call(call("getNote", noteId="zz"))
    assert result.status == "not_found" and result.content == {"message": "no such note"}


def note_task(*gold: GoldCall) -> Task:
    goal = Goal(user=UserIntent(explicit="Read my note."), gold=list(gold))
    return Task(id="t1", world="notes", goals=[goal])


async def test_misses_the_run_may_not_simulate_are_classified_without_a_request(tmp_path: Path) -> None:
    """A miss on the task's gold path is the cache's (not warmed): world:not_cached, the episode not scored. Off
    that path the agent left the recorded calls: a 503 it can read, coded as a cache miss, the episode scored."""
    llm = ScriptedLLM([ok(NOTE)])
    task = note_task(GoldCall(name="getNote", arguments={"noteId": "n-1"}))
    for world in (
        pack(tmp_path, [task]).new_world(0, WorldContext(task=task, llm=llm, cache_mode="read-only")),
        pack(tmp_path, [task]).new_world(0, WorldContext(task=task)),  # outside a run (the gold check)
        pack(tmp_path, [task], model=None).new_world(0, WorldContext(task=task, llm=llm, cache_mode="read-write")),
    ):
        gold = await world.call(call("getNote", noteId="n-1", limit=10))  # the default written out: the same call
        assert gold.status == "unavailable" and gold.error_code == NOT_CACHED
        off = await world.call(call("getNote", noteId="n-1", limit=3))
        assert off.status == "unavailable" and off.error_code == CACHE_MISS_CODE
        assert isinstance(off.content, dict) and "recorded responses" in off.content["error"]
    assert llm.requests == []
    # After a write off the gold, even a gold call has left the recorded path.
    shared = pack(tmp_path, [task])
    shared.runtime.store.put("createNote", CachedResponse({"text": "x"}, "", {"status": 201, "body": NOTE}, "m"))
    world = shared.new_world(0, WorldContext(task=task, cache_mode="read-only"))
    assert (await world.call(call("createNote", text="x"))).ok
    assert (await world.call(call("getNote", noteId="n-1"))).error_code == CACHE_MISS_CODE


async def test_cache_mode_off_keeps_answers_for_the_run_only(tmp_path: Path) -> None:
    llm = ScriptedLLM([ok(NOTE)])
    shared = pack(tmp_path)
    for seed in (0, 1):
        assert (await shared.new_world(seed, context(llm, "off")).call(call("getNote", noteId="n-1"))).ok
    assert len(llm.requests) == 1 and not (tmp_path / "cache").exists()


async def test_a_write_is_remembered_and_a_read_back_is_keyed_by_it(tmp_path: Path) -> None:
    created = {"id": "n-9", "text": "buy milk"}
    llm = ScriptedLLM([ok(created, 201), ok(created)])
    world = pack(tmp_path).new_world(0, context(llm))
    empty = world.state_hash()
    assert (await world.call(call("createNote", text="buy milk"))).content == created
    assert world.state_hash() != empty and world.state_key() != ""
    read = await world.call(call("getNote", noteId="n-9"))
    assert read.content == created
    assert "createNote" in llm.requests[1].messages[1].content  # the model saw the change
    entry = json.loads((tmp_path / "cache" / "getNote.json").read_text())["entries"][0]
    assert entry["state"] == world.state_key()
    snapshot = world.snapshot()
    world.restore([])
    assert world.state_hash() == empty
    world.restore(snapshot)
    assert world.state_key() == entry["state"]


async def test_concurrent_identical_misses_make_one_request(tmp_path: Path) -> None:
    llm = ScriptedLLM([ok(NOTE)])
    shared = pack(tmp_path)
    results = await asyncio.gather(
        *(shared.new_world(s, context(llm)).call(call("getNote", noteId="n-1")) for s in range(5))
    )
    assert len(llm.requests) == 1 and all(r == results[0] for r in results)


def test_many_writers_on_one_folder_lose_nothing_and_the_file_is_sorted(tmp_path: Path) -> None:
    stores = [ResponseStore(tmp_path) for _ in range(4)]  # as separate processes would: each its own memory

    def write(n: int) -> None:
        for i in range(25):
            stores[n].put("op", CachedResponse({"i": i * 4 + n}, "", {"n": n}, "m"))

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    entries = json.loads((tmp_path / "op.json").read_text())["entries"]
    assert len(entries) == 100
    assert [canonical_json(e["arguments"]) for e in entries] == sorted(canonical_json(e["arguments"]) for e in entries)
    assert not list(tmp_path.glob(".*.tmp"))


def test_a_world_fault_makes_the_episode_unscoreable() -> None:
    failed = ToolResult(call_id="c1", status="unavailable", error_code=SIMULATION_FAILED)
    event = Event(kind="tool_result", turn=0, call=call("getNote", noteId="n-1"), result=failed)
    from tests.worlds.simulated.support import SPEC

    base = {"episode_id": "e#0", "task_id": "e", "trial": 0, "seed": 0, "world": SPEC.name, "agent": "a", "user": "u"}
    task = {"id": "e", "world": SPEC.name, "goals": [{"user": {"explicit": "x"}, "gold": []}]}
    result = EpisodeResult.model_validate({**base, "task": task, "tools": [], "events": [event.model_dump()]})
    assert result.failed and result.world_fault == SIMULATION_FAILED


async def test_gold_without_arguments_loads_and_is_never_replayed(tmp_path: Path) -> None:
    from sim.core import Task
    from worlds.gold_check import GOLD_ARGUMENTS_UNKNOWN, check_gold_by_execution
    from worlds.simulated.warm import warm

    goal = {"user": {"explicit": "Show note n-1."}, "gold": [{"name": "getNote"}]}  # ToolBench: no arguments known
    task = Task.model_validate({"id": "q7", "world": "notes", "tags": [GOLD_ARGUMENTS_UNKNOWN], "goals": [goal]})
    loaded = pack(tmp_path, [task])
    llm = ScriptedLLM([ok(NOTE)])
    assert (await warm(loaded, llm)).calls == 0 and await check_gold_by_execution(loaded) == 0
    assert llm.requests == []
