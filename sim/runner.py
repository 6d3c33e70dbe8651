"""Run a plan: validate everything, then execute episodes concurrently, judge and store each as it finishes.

Order matters for "bad input writes nothing": the world (with its gold plans run by execution), the
plan, the user, the stressors, the judges, the run folder's name and the agent's model are all checked
— and the embedded model server started — before the run folder is created.
"""

from __future__ import annotations

import asyncio
import os
import platform
import subprocess
from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from personas import build_user
from sim.agents.factory import LOCAL, AgentSpec, AgentUnavailable, open_agent, parse_agent_spec
from sim.config import ConfigError, RunConfig
from sim.core import Agent, EpisodeResult, Judge, Score, WorldPack
from sim.deadline import LoopLag
from sim.episode import EpisodeLimits, EpisodeSpec, run_episode
from sim.judging import build_judges, judge, judge_config, judge_config_hash, run_summary
from sim.llm.gateway import Gateway
from sim.plan import Plan, make_plan
from sim.store import RunStore
from worlds.gold_check import check_gold_by_execution
from worlds.registry import load_world
from worlds.stressors import build_stressors

if TYPE_CHECKING:
    from sim.llm.cache import ResponseCache

OnEpisode = Callable[[EpisodeResult, list[Score]], None]
T = TypeVar("T")


def _checked(config: RunConfig, field: str, build: Callable[[], T]) -> T:
    """Run a spec parser; its ValueError becomes a ConfigError naming where the value came from."""
    try:
        return build()
    except ValueError as exc:
        raise config.problem(field, str(exc)) from exc


def manifest(config: RunConfig, run_id: str, planned: int) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "config": config.model_dump(mode="json"),
        "config_hash": config.config_hash(),
        "judge_config": judge_config(config),
        "seed": config.seed,
        "planned_episodes": planned,
        "git_commit": _git_commit(),
        "versions": {
            "python": platform.python_version(),
            **{pkg: _version(pkg) for pkg in ("squall", "pydantic-ai-slim", "pydantic", "openai")},
        },
        "platform": platform.platform(),
    }


def _version(pkg: str) -> str | None:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return None


def _git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, cwd=Path(__file__).resolve().parent
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def _cache(config: RunConfig) -> ResponseCache | None:
    if config.cache == "off":
        return None
    from sim.llm.cache import ResponseCache

    return ResponseCache(config.cache_dir, config.cache)


def _point_latest(store: RunStore) -> None:
    """OUT/latest -> the newest run, swapped atomically; always inside OUT (run ids are names)."""
    link = store.root.parent / "latest"
    tmp = store.root.parent / ".latest.tmp"
    tmp.unlink(missing_ok=True)
    os.symlink(store.root.name, tmp)
    os.replace(tmp, link)


async def load_checked_world(config: RunConfig) -> WorldPack:
    """The world, with every gold path of the tasks this run uses executed once (fails fast on bad gold)."""
    from worlds.gold_check import GoldPlanError

    pack = _checked(config, "world", lambda: load_world(config.world))
    try:
        await check_gold_by_execution(pack)
    except GoldPlanError as exc:
        raise config.problem("world", f"{config.world}: gold plan does not execute: {exc}") from exc
    return pack


async def execute(
    config: RunConfig, on_start: Callable[[int, int], None] | None = None, on_episode: OnEpisode | None = None
) -> tuple[RunStore, dict[str, Any]]:
    """Run every planned episode not yet in the store; returns the store and the run summary."""
    if config.resume and config.run_id is None:
        raise ConfigError("--resume needs --run-id (the name of the run directory to continue)")
    pack = await load_checked_world(config)
    plan = make_plan(config, pack)
    agent_spec = _checked(config, "agent", lambda: parse_agent_spec(config.agent))
    _checked(config, "user", lambda: build_user(config.user))
    _checked(config, "stressors", lambda: build_stressors(config.stressors, 0))
    if agent_spec.model == LOCAL:
        from sim.llm.local_server import local_model_available

        if reason := local_model_available():
            raise config.problem("agent", f"{config.agent} needs the embedded model: {reason}; run `make setup`")
    judges = build_judges(config)
    settings = judge_config(config)
    score_set = judge_config_hash(settings)
    run_id = config.run_id or datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    root = config.out / run_id
    store: RunStore | None = RunStore.resume(root, config.config_hash()) if config.resume else None
    if store is None:
        RunStore.check_new(root)

    async with AsyncExitStack() as stack:
        # --- model access: the run's one gateway, and the agent on it (resolved before the run folder exists) ---
        gateway = Gateway(
            config.requests_per_endpoint,
            config.retry,
            seed=config.seed,
            request_timeout_s=config.request_timeout_s,
            static=config.scheduler == "static",
            cache=_cache(config),
        )
        stack.push_async_callback(gateway.aclose)
        try:
            agent = await stack.enter_async_context(
                open_agent(agent_spec, gateway, config.max_tokens, config.temperature)
            )
        except AgentUnavailable as exc:
            raise config.problem("agent", str(exc)) from exc
        loop_lag = LoopLag()
        lag_task = asyncio.create_task(loop_lag.run())
        stack.callback(lag_task.cancel)
        if store is None:
            store = RunStore.create(root, manifest(config, run_id, len(plan)))
        _point_latest(store)
        if store.newest_score_set() != score_set:
            store.add_score_set(score_set, settings, "run")
        try:
            done = await _judge_stored(store, judges, score_set)
            if on_start:
                on_start(len(plan), len(done))
            await _run_all(
                _todo(plan, done),
                config,
                agent_spec,
                pack,
                agent,
                gateway,
                loop_lag,
                judges,
                score_set,
                store,
                on_episode,
            )
        finally:
            summary = run_summary(store, score_set, len(plan))
            store.write_summary(summary)
    assert store is not None
    return store, summary


async def _judge_stored(store: RunStore, judges: list[Judge], score_set: str) -> set[str]:
    """Ids of stored episodes; scores those a crash left unscored, and re-runs judge faults (not done)."""
    scored = {(s.episode_id, s.judge): s.judge_fault for s in store.scores(score_set)}
    done: set[str] = set()
    for result in store.iter_episodes():
        done.add(result.episode_id)
        missing = [j for j in judges if scored.get((result.episode_id, j.name), True)]
        if missing:
            store.append_scores(await judge(result, missing, score_set))
    return done


def _todo(plan: Plan, done: set[str]) -> Iterator[EpisodeSpec]:
    return (spec for spec in plan if spec.episode_id not in done)


async def _run_all(
    todo: Iterator[EpisodeSpec],
    config: RunConfig,
    agent_spec: AgentSpec,
    pack: WorldPack,
    agent: Agent,
    gateway: Gateway,
    loop_lag: LoopLag,
    judges: list[Judge],
    score_set: str,
    store: RunStore,
    on_episode: OnEpisode | None,
) -> None:
    limits = EpisodeLimits(max_steps=config.max_steps, max_turns=config.max_turns, timeout_s=config.episode_timeout_s)
    labels = (agent.name if agent_spec.model is None else config.agent, config.user)

    async def worker() -> None:
        # Workers share one lazy iterator: taking the next spec never awaits, so no spec is taken twice.
        for spec in todo:
            user = build_user(config.user)
            stressors = build_stressors(config.stressors, spec.seed)
            result = await run_episode(spec, pack, agent, user, stressors, gateway, limits, labels, loop_lag.total)
            scores = await judge(result, judges, score_set)
            # Both appends happen without an await in between: one writer, records never interleave.
            store.append_episode(result)
            store.append_scores(scores)
            if on_episode:
                on_episode(result, scores)

    # A TaskGroup cancels the other workers if one fails, so nothing keeps running unobserved.
    async with asyncio.TaskGroup() as tg:
        for _ in range(config.concurrency):
            tg.create_task(worker())
