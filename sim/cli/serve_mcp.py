"""``squall serve --mcp --world W [--stressors S] [--task ID]``: one episode of a task served over MCP, for a person
or an agent to explore the world by hand; saved and judged as a one-episode run when it ends.

The episode is a normal run (preparation, stressors, store, judges) whose agent is the ``python:`` outside agent
``explore`` below: the scripted user opens with the task's first request, and the agent's one turn is the whole
session. While it lasts, the episode's tools are served at the printed streamable-HTTP URL (127.0.0.1, the hub's
free port) by the same MCP hub outside agents use: every call goes through the stressors and is recorded. Ctrl-C
or SIGTERM ends the turn: the conversation ends there, and the episode is stored under ``OUT/RUN_ID`` and judged.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from pathlib import Path
from typing import Any

_ended: asyncio.Event | None = None
"""Set by Ctrl-C/SIGTERM: the explorer's turn (and so the episode) ends."""


async def explore(request: Any) -> dict[str, Any]:
    """The episode's agent (``python:sim.cli.serve_mcp:explore``): says where the tools are, waits for the end."""
    said = "\n".join(f"  {m.role}: {m.content}" for m in request.messages)
    sys.stdout.write(
        f"squall serve: episode {request.episode_id} (task {request.task_id}) at {request.mcp_url}\n"
        f"the conversation so far:\n{said}\n"
        f"(at most {request.max_steps} tool calls; Ctrl-C or SIGTERM ends the episode, saves and judges it)\n"
    )
    sys.stdout.flush()
    assert _ended is not None, "explore runs only under squall serve --mcp"
    await _ended.wait()
    return {"reply": "", "end": True}


async def serve_episode(config: Any) -> tuple[Path, Any]:
    """Play the one episode with ``explore`` as its agent until Ctrl-C/SIGTERM; the run folder and summary."""
    from sim.judging.judge_set import open_judges
    from sim.run.driver import drive
    from sim.run.executors import InProcessExecutor
    from sim.run.prepare import prepare
    from sim.run.session import episode_session

    global _ended
    _ended = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, _ended.set)
    try:
        run = await prepare(config)
        async with (
            open_judges(config) as judges,
            episode_session(config, run.agent_spec, run.pack, run.root) as session,
        ):
            store, summary = await drive(run, judges, InProcessExecutor(session.run_one, 1))
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signum)
    return store.root, summary


def serve_mcp(
    world: str,
    stressors: str | None,
    task: str | None,
    out: Path | None,
    run_id: str | None,
    seed: int | None,
    max_steps: int,
    timeout_s: float,
) -> None:
    from sim.cli.common import fail, make_console, user_errors
    from sim.config.run_config import resolve_config
    from sim.report.terminal import render
    from worlds.stressors.catalog import split_items

    overrides: dict[str, Any] = {
        "world": world,
        "agent": "python:sim.cli.serve_mcp:explore",
        "stressors": split_items(stressors) if stressors is not None else None,
        "out": out,
        "run_id": run_id,
        "seed": seed,
        "max_steps": max_steps,
        "episode_timeout_s": timeout_s,
        "user": "scripted",
        "trials": 1,
        "concurrency": 1,
        "tasks": [task] if task else None,
        "limit": None if task else 1,
    }
    try:
        cfg, _ = resolve_config(None, overrides)
        root, summary = asyncio.run(serve_episode(cfg))
    except user_errors() as exc:
        fail(str(exc))
    console = make_console(stderr=True)
    render(summary, console)
    console.print(f"saved: {root} (re-judge with: squall score {root})")
