"""The floor of `squall bench`: plain aiohttp holding the same growing multi-turn conversations, no squall engine.

Run as ``python -m sim.bench.bare_arm '<json params>'``; prints one JSON object with the fields ``sim.bench.arm``
prints, so the two arms go through the same bounds and table. Each episode is one of the smart_home world's tasks
(round-robin), as the squall arm plays them against the mock's ``first_tool`` policy: per goal, the scripted user's
explicit request, the model's tool call, the call's result, the model's answer; every request carries the whole
conversation so far and every tool. What the client does per request is the least any client does: append the
last reply and the next message, encode the body, POST it, read and parse the answer. The tool result is the world's
real answer to that call, computed once before the clock starts (the floor runs no world). CPU per request over the
same window as the squall arm's (first request to last answer) is what ``squall bench`` divides squall's by.
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
import time
from typing import Any

import aiohttp

from sim.bench.arm import EndpointCounter, steady_state
from sim.core import ToolCall
from sim.mockllm.policies import example_value
from worlds.registry import load_world

WORLD = "smart_home"  # the squall arm's world


async def conversations(world_name: str = WORLD) -> tuple[list[list[str]], str, list[dict[str, Any]], str]:
    """Each task's user requests (one per goal), the system prompt, the tools in OpenAI's format, and the content
    of the result of the call the mock's ``first_tool`` policy makes (the first tool, example arguments)."""
    pack = load_world(world_name)
    world = pack.new_world(0)
    specs = world.specs()
    tools = [
        {"type": "function", "function": {"name": s.name, "description": s.description, "parameters": s.parameters}}
        for s in specs
    ]
    first = ToolCall(id="call_1", name=specs[0].name, arguments=example_value(specs[0].parameters))
    result = await world.call(first)
    content = json.dumps(result.content, ensure_ascii=False, default=str)
    requests = [[goal.user.explicit for goal in task.goals] for task in pack.tasks()]
    return requests, world.instructions(), tools, content


class Counts:
    def __init__(self) -> None:
        self.requests = 0
        self.tokens = 0
        self.failed = 0
        self.episodes = 0


async def _episode(
    session: aiohttp.ClientSession, url: str, goals: list[str], system: str, tools: list[dict[str, Any]],
    result: str, counts: Counts, max_tokens: int,
) -> None:  # fmt: skip
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
    for request in goals:
        messages.append({"role": "user", "content": request})
        while True:
            body = {"model": "mock-model", "messages": messages, "tools": tools, "max_tokens": max_tokens}
            async with session.post(url, data=json.dumps(body), headers={"Content-Type": "application/json"}) as r:
                answer = json.loads(await r.read())
            if r.status != 200:
                raise RuntimeError(f"HTTP {r.status}: {str(answer)[:200]}")
            counts.requests += 1
            usage = answer.get("usage") or {}
            counts.tokens += int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))
            message = answer["choices"][0]["message"]
            calls = message.get("tool_calls") or []
            messages.append({k: v for k, v in message.items() if v is not None})
            if not calls:
                break
            messages.extend({"role": "tool", "tool_call_id": c["id"], "content": result} for c in calls)


async def play(params: dict[str, Any]) -> dict[str, Any]:
    requests, system, tools, result = await conversations()
    url = params["url"].rstrip("/") + "/chat/completions"
    episodes, concurrency = params["episodes"], params["concurrency"]
    counts = Counts()
    finished: list[tuple[float, float]] = []  # (time, 0.0): steady_state's shape, without memory samples
    queue = iter(range(episodes))
    timeout = aiohttp.ClientTimeout(total=params.get("request_timeout_s", 30.0))
    connector = aiohttp.TCPConnector(limit=0)

    async def slot() -> None:
        for n in queue:  # each slot takes the next episode when its last one ends, as squall admits
            try:
                await _episode(session, url, requests[n % len(requests)], system, tools, result, counts,
                               params.get("max_tokens", 64))  # fmt: skip
                counts.episodes += 1
            except (aiohttp.ClientError, RuntimeError, TimeoutError, KeyError, ValueError):
                counts.failed += 1
            finished.append((time.monotonic(), 0.0))

    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        started, cpu_started = time.monotonic(), time.process_time()
        await asyncio.gather(*(slot() for _ in range(min(concurrency, episodes))))
        wall, cpu = time.monotonic() - started, time.process_time() - cpu_started
    return {"counts": counts, "wall": wall, "cpu": cpu, "finished": finished}


def run_arm(params: dict[str, Any]) -> dict[str, Any]:
    served = EndpointCounter(params["url"])
    served.start()
    try:
        out = asyncio.run(play(params))
    finally:
        served.stop()
    counts: Counts = out["counts"]
    wall, cpu = out["wall"], out["cpu"]
    steady = steady_state(out["finished"], params["concurrency"], served.samples)
    steady.pop("steady_rss_mb", None)  # no memory samples here: peak RSS says it
    return {
        "episodes": counts.episodes,
        "failed_episodes": counts.failed,
        "terminations": {},
        "requests": counts.requests,
        "retries": 0,
        "errors_429": 0,
        "tokens": counts.tokens,
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu, 3),
        "cpu_ms_per_request": round(1000 * cpu / max(1, counts.requests), 3),
        "cores_busy": round(cpu / max(1e-9, wall), 3),
        "workers": 1,
        "workers_cpu_s": 0.0,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        **steady,
    }


def main() -> None:
    print(json.dumps(run_arm(json.loads(sys.argv[1]))))


if __name__ == "__main__":
    main()
