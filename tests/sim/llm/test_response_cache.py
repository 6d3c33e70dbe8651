"""Response cache: round trips, modes, corrupt and foreign entries, concurrent writers, kill -9, flushing."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sim.core import ChatMessage, ModelRequest, ModelResponse, ToolCall, ToolSpec
from sim.llm.cache import ResponseCache
from tests.support.paths import REPO_ROOT


def request(i: int = 0, role: str = "agent", seed: int | None = 7, temperature: float | None = 0.0) -> ModelRequest:
    return ModelRequest.model_validate(
        {
            "role": role,
            "model": "openai-chat:m@http://localhost:1/v1",
            "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": f"question {i}"}],
            "tools": [ToolSpec(name="look", description="looks", read_only=True)],
            "seed": seed,
            "temperature": temperature,
        }
    )


def response(text: str = "answer") -> ModelResponse:
    return ModelResponse(
        text=text,
        tool_calls=(ToolCall(id="c1", name="look", arguments={"q": "ünï", "n": [1, 2.5, None]}),),
        finish_reason="tool_calls",
        input_tokens=12,
        output_tokens=3,
        cost=0.1 + 0.2,
        model="m-2025",
        invalid_arguments={"c0": "{not json"},
    )


def tree(root: Path) -> list[tuple[Path, int]]:
    """Every path under root with its modification time."""
    return sorted((p, p.stat().st_mtime_ns) for p in root.rglob("*"))


def stored_files(root: Path) -> tuple[list[Path], list[Path]]:
    """(entries, temp files) under a cache directory."""
    files = [p for p in root.rglob("*") if p.is_file()] if root.exists() else []
    return [p for p in files if p.suffix == ".json"], [p for p in files if p.name.endswith(".tmp")]


async def test_round_trip_and_counts(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c")
    req, resp = request(), response()
    assert await cache.get(req) is None
    await cache.put(req, resp)
    pending_hit = await cache.get(req)  # before the writer ran: served from memory
    await cache.aclose()
    assert (cache.stats.hits, cache.stats.misses, cache.stats.writes) == (1, 1, 1)
    assert cache.path(req.cache_key()).is_file()

    again = ResponseCache(tmp_path / "c")
    hit = await again.get(req)
    assert hit is not None and pending_hit is not None
    assert hit.cached and pending_hit.cached
    # Exactly the stored response, but for the flag.
    assert hit.model_copy(update={"cached": False}).model_dump_json() == resp.model_dump_json()
    assert hit.model_copy(update={"cached": False}) == resp
    assert hit == pending_hit
    assert (again.stats.hits, again.stats.misses, again.stats.corrupt) == (1, 0, 0)


async def test_a_second_run_makes_no_endpoint_requests(tmp_path: Path) -> None:
    """The gateway's pattern: get, else ask the endpoint and put."""
    asked: list[str] = []

    async def complete(cache: ResponseCache, req: ModelRequest) -> ModelResponse:
        found = await cache.get(req)
        if found is not None:
            return found
        asked.append(req.cache_key())
        answer = response(f"answer to {req.messages[-1].content}")
        await cache.put(req, answer)
        return answer

    async def run() -> list[ModelResponse]:
        async with ResponseCache(tmp_path) as cache:
            return list(await asyncio.gather(*(complete(cache, request(i % 20)) for i in range(60))))

    first = await run()
    assert 20 <= len(asked) <= 60  # concurrent identical requests may each miss: no single-flight here
    asked.clear()
    second = await run()
    assert asked == []
    assert [r.model_copy(update={"cached": False}) for r in second] == [
        r.model_copy(update={"cached": False}) for r in first
    ]


async def test_key_shared_by_roles_and_split_by_sampling(tmp_path: Path) -> None:
    async with ResponseCache(tmp_path) as cache:
        await cache.put(request(role="user"), response())
    cache = ResponseCache(tmp_path)
    assert await cache.get(request(role="judge")) is not None
    for other in (request(seed=8), request(temperature=0.5), request(i=1)):
        assert await cache.get(other) is None
    assert (cache.stats.hits, cache.stats.misses) == (1, 3)


async def test_hits_are_not_written_again(tmp_path: Path) -> None:
    async with ResponseCache(tmp_path) as cache:
        await cache.put(request(), response())
    async with ResponseCache(tmp_path) as cache:
        hit = await cache.get(request())
        assert hit is not None
        await cache.put(request(), hit)
    assert cache.stats.writes == 0


async def test_read_only_never_writes(tmp_path: Path) -> None:
    root = tmp_path / "c"
    async with ResponseCache(root, "read-only") as cache:
        assert await cache.get(request()) is None
        await cache.put(request(), response())
        assert await cache.get(request()) is None
    assert not root.exists()
    async with ResponseCache(root) as writer:
        await writer.put(request(), response())
    cache = ResponseCache(root, "read-only")
    assert await cache.get(request()) is not None
    bad = cache.path(request(1).cache_key())
    bad.parent.mkdir(parents=True, exist_ok=True)
    bad.write_bytes(b"{garbage")
    assert await cache.get(request(1)) is None
    await cache.aclose()
    assert cache.stats.corrupt == 1 and bad.exists()  # counted, not removed


async def test_off_touches_nothing(tmp_path: Path) -> None:
    async with ResponseCache(tmp_path) as writer:
        await writer.put(request(), response())
    before = tree(tmp_path)
    async with ResponseCache(tmp_path, "off") as cache:
        assert await cache.get(request()) is None
        await cache.put(request(1), response())
    assert tree(tmp_path) == before
    assert cache.stats.hits == cache.stats.misses == cache.stats.writes == 0


def test_unknown_mode_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="read-write"):
        ResponseCache(tmp_path, "rw")  # type: ignore[arg-type]


@pytest.mark.parametrize("damage", ["torn", "garbage", "empty", "other_key", "not_an_entry"])
async def test_bad_entry_is_a_miss_and_removed(tmp_path: Path, damage: str) -> None:
    async with ResponseCache(tmp_path) as writer:
        await writer.put(request(), response())
    good = writer.path(request().cache_key())
    data = good.read_bytes()
    target = writer.path(request(1).cache_key())
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(
        {
            "torn": data[: len(data) // 2],
            "garbage": b"\xff\xfe\x00binary",
            "empty": b"",
            "other_key": data,  # a valid entry under another entry's name
            "not_an_entry": json.dumps({"key": request(1).cache_key(), "response": {"text": 3}}).encode(),
        }[damage]
    )
    cache = ResponseCache(tmp_path)
    assert await cache.get(request(1)) is None
    await cache.aclose()
    assert (cache.stats.misses, cache.stats.corrupt) == (1, 1)
    assert not target.exists()
    assert good.exists()


async def test_only_the_corrupt_file_read_is_removed(tmp_path: Path) -> None:
    """Another process may replace a corrupt entry between our read and our removal: its entry stays."""
    async with ResponseCache(tmp_path) as writer:
        await writer.put(request(), response())
    path = writer.path(request().cache_key())
    good = path.read_bytes()
    path.write_bytes(b"{torn")
    cache = ResponseCache(tmp_path)
    assert await cache.get(request()) is None  # its removal is queued; the writer has not run yet
    replacement = path.with_name(".other-process.tmp")
    replacement.write_bytes(good)
    os.replace(replacement, path)
    await cache.aclose()
    assert cache.stats.corrupt == 1
    assert await ResponseCache(tmp_path).get(request()) is not None


async def test_temp_files_are_never_read_and_old_ones_are_swept(tmp_path: Path) -> None:
    async with ResponseCache(tmp_path) as writer:
        await writer.put(request(), response())
    entry = writer.path(request().cache_key())
    key1, key2 = request(1).cache_key(), request(2).cache_key()
    old = entry.parent.parent / key1[:2] / f".{key1}.dead.tmp"  # as left by a writer killed before its rename
    young = entry.parent.parent / key2[:2] / f".{key2}.live.tmp"
    for path, key in ((old, key1), (young, key2)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(entry.read_text().replace(request().cache_key(), key))
    os.utime(old, (time.time() - 7200, time.time() - 7200))

    cache = ResponseCache(tmp_path)
    assert await cache.get(request(1)) is None and await cache.get(request(2)) is None
    assert await ResponseCache(tmp_path, "read-only").sweep(0) == 0
    assert await cache.sweep() == 1
    assert not old.exists() and young.exists()
    await cache.put(request(3), response())  # a writer also sweeps once when it starts
    await cache.aclose()
    assert await cache.sweep(0) == 1 and not young.exists()


async def test_aclose_flushes_everything_under_backpressure(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path, max_pending=4)
    for i in range(300):
        await cache.put(request(i), response(f"r{i}"))
    await cache.aclose()
    entries, temps = stored_files(tmp_path)
    assert len(entries) == 300 and not temps
    assert cache.stats.writes == 300 and cache.stats.errors == 0
    assert not cache._pending  # written entries leave memory
    with pytest.raises(RuntimeError, match="aclose"):
        await cache.put(request(), response())
    hit = await cache.get(request(299))  # reads still work after close
    assert hit is not None and hit.text == "r299"


async def test_a_missed_request_is_hashed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = 0
    real = ModelRequest.cache_key

    def counting(self: ModelRequest) -> str:
        nonlocal calls
        calls += 1
        return real(self)

    monkeypatch.setattr(ModelRequest, "cache_key", counting)
    async with ResponseCache(tmp_path) as cache:
        req = request()
        assert await cache.get(req) is None
        await cache.put(req, response())
        assert calls == 1
        assert await cache.get(request(1)) is None  # that request object is gone at once...
        gc.collect()
        assert cache._keys == {}  # ...and so is its remembered key
        await cache.put(request(1), response())  # an equal object: hashed again, to the same key
        assert calls == 3
    assert await ResponseCache(tmp_path).get(request(1)) is not None


async def test_io_errors_degrade_to_misses(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    cache = ResponseCache(not_a_dir)
    assert await cache.get(request()) is None
    await cache.put(request(), response())
    await cache.aclose()
    assert cache.stats.errors == 2 and cache.stats.writes == 0


# --- several processes

WRITER = """
import asyncio, sys
from pathlib import Path
from sim.core import ModelRequest, ModelResponse
from sim.llm.cache import ResponseCache

root, who, count, size = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
distinct = who == "distinct"

def request(i):
    return ModelRequest(role="agent", model="m", messages=[{"role": "user", "content": f"q{i if distinct else 0}"}])

async def main():
    cache = ResponseCache(root)
    for i in range(count):
        await cache.put(request(i), ModelResponse(text=f"{who}:{i}:" + "x" * size))
        if i % 8 == 7:
            await asyncio.sleep(0)  # let the writer run now and then, as a real run does
    await cache.aclose()

asyncio.run(main())
"""


def writer(root: Path, who: str, count: int, size: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    args = [sys.executable, "-c", WRITER, str(root), who, str(count), str(size)]
    return subprocess.Popen(args, cwd=REPO_ROOT, env=env, stderr=subprocess.PIPE)


def plain(i: int) -> ModelRequest:
    return ModelRequest(role="agent", model="m", messages=(ChatMessage(role="user", content=f"q{i}"),))


async def test_concurrent_writers_of_one_key_leave_a_valid_entry(tmp_path: Path) -> None:
    size, count = 256_000, 100
    procs = [writer(tmp_path, f"w{n}", count, size) for n in range(4)]
    reader = ResponseCache(tmp_path, "read-only")
    seen = set()
    while any(p.poll() is None for p in procs):
        hit = await reader.get(plain(0))  # reading while they write: whole entries or none
        if hit is not None:
            who, i, pad = hit.text.split(":")
            assert who in {"w0", "w1", "w2", "w3"} and 0 <= int(i) < count and pad == "x" * size
            seen.add(who)
        await asyncio.sleep(0.0005)  # leave the CPUs to the writers
    for p in procs:
        assert p.wait() == 0, p.stderr.read().decode() if p.stderr else ""
    final = await reader.get(plain(0))
    assert final is not None and final.text.endswith(f":{count - 1}:" + "x" * size)
    assert reader.stats.corrupt == reader.stats.errors == 0
    assert stored_files(tmp_path)[1] == []  # every temp file was renamed into place
    assert seen


async def test_kill_9_mid_write_leaves_no_wrong_entry(tmp_path: Path) -> None:
    size, count = 200_000, 400
    proc = writer(tmp_path, "distinct", count, size)
    deadline = time.monotonic() + 30
    while len(stored_files(tmp_path)[0]) < 20:
        assert proc.poll() is None and time.monotonic() < deadline, "writer ended before it was killed"
        await asyncio.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()

    keys = {plain(i).cache_key(): i for i in range(count)}
    entries, _temps = stored_files(tmp_path)
    assert 20 <= len(entries) < count
    cache = ResponseCache(tmp_path, "read-only")
    for path in entries:
        i = keys[path.stem]
        hit = await cache.get(plain(i))
        assert hit is not None and hit.text == f"distinct:{i}:" + "x" * size
    assert cache.stats.corrupt == cache.stats.errors == 0
    await ResponseCache(tmp_path).sweep(0)  # whatever the kill left half-written goes
    assert stored_files(tmp_path)[1] == []
