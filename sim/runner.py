"""Plan a run, execute its episodes concurrently, judge and store each as it finishes."""

from __future__ import annotations

import asyncio
import hashlib
import os
import platform
import subprocess
from collections.abc import Callable
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

from judges.arg_match import ArgMatcher
from judges.core_api import ConversationSuccess, CoreApiAccuracy
from judges.metrics import summarize
from personas import build_user
from sim.agents.factory import LOCAL, open_agent, parse_agent_spec
from sim.config import ConfigError, RunConfig
from sim.core import Agent, EpisodeResult, Judge, Score, WorldPack
from sim.episode import EpisodeLimits, EpisodeSpec, run_episode
from sim.llm.gateway import Gateway
from sim.llm.models import ModelFactory
from sim.store import RunStore
from worlds.registry import load_world
from worlds.stressors import build_stressors

OnEpisode = Callable[[EpisodeResult, list[Score]], None]
T = TypeVar("T")


def derive_seed(root: int, task_id: str, trial: int) -> int:
    """Stable per-episode seed: same run seed, task and trial give the same world, user and stressors."""
    digest = hashlib.sha256(f"{root}:{task_id}:{trial}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def plan(config: RunConfig, pack: WorldPack) -> list[EpisodeSpec]:
    tasks = pack.tasks()
    if config.tasks:
        known = {t.id for t in tasks}
        missing = [t for t in config.tasks if t not in known]
        if missing:
            raise ConfigError(f"field 'tasks': unknown task id(s) {missing} in world {pack.name!r}")
        tasks = [t for t in tasks if t.id in set(config.tasks)]
    if config.limit is not None:
        tasks = tasks[: config.limit]
    return [
        EpisodeSpec(task=t, trial=k, seed=derive_seed(config.seed, t.id, k))
        for t in tasks
        for k in range(config.trials)
    ]


def _checked(field: str, build: Callable[[], T]) -> T:
    """Run a spec parser; its ValueError becomes a ConfigError naming the field."""
    try:
        return build()
    except ValueError as exc:
        raise ConfigError(f"field '{field}': {exc}") from exc


def build_judges(config: RunConfig) -> list[Judge]:
    embedder = None
    if config.arg_match == "embedding":
        from judges.embedding import Embedder

        embedder = Embedder()
    matcher = ArgMatcher(mode=config.arg_match, threshold=config.embedding_threshold, embedder=embedder)
    return [CoreApiAccuracy(matcher), ConversationSuccess(matcher)]


async def judge(result: EpisodeResult, judges: list[Judge]) -> list[Score]:
    """Every judge's score; a judge that crashes yields an unscored Score (a judge fault), not a lost episode."""
    scores = []
    for j in judges:
        try:
            scores.append(await j.score(result))
        except Exception as exc:
            scores.append(
                Score(
                    episode_id=result.episode_id,
                    task_id=result.task_id,
                    trial=result.trial,
                    judge=j.name,
                    value=None,
                    errors=[f"judge:{type(exc).__name__}"],
                    details={"error": str(exc)[:500]},
                )
            )
    return scores


def manifest(config: RunConfig, run_id: str, planned: int) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "config": config.model_dump(mode="json"),
        "config_hash": config.config_hash(),
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


def open_store(config: RunConfig, planned: int) -> RunStore:
    run_id = config.run_id or datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    root = config.out / run_id
    if config.resume:
        return RunStore.resume(root, config.config_hash())
    return RunStore.create(root, manifest(config, run_id, planned))


def _point_latest(store: RunStore) -> None:
    """runs/latest -> the newest run, swapped atomically."""
    link = store.root.parent / "latest"
    tmp = store.root.parent / ".latest.tmp"
    tmp.unlink(missing_ok=True)
    os.symlink(store.root.name, tmp)
    os.replace(tmp, link)


async def execute(
    config: RunConfig, on_start: Callable[[int, int], None] | None = None, on_episode: OnEpisode | None = None
) -> tuple[RunStore, dict[str, Any]]:
    """Run every planned episode not yet in the store; returns the store and the run summary."""
    pack = load_world(config.world)
    specs = plan(config, pack)
    # Fail on a bad spec before anything starts or is written.
    agent_spec = _checked("agent", lambda: parse_agent_spec(config.agent))
    _checked("user", lambda: build_user(config.user))
    _checked("stressors", lambda: build_stressors(config.stressors, 0))
    if agent_spec.model == LOCAL:
        from sim.llm.local_server import local_model_available

        if reason := local_model_available():
            raise ConfigError(f"field 'agent': {config.agent} needs the embedded model: {reason}; run `make setup`")
    judges = build_judges(config)
    store = open_store(config, len(specs))
    _point_latest(store)

    finished = {r.episode_id: r for r in store.episodes()}
    scored = {(s.episode_id, s.judge) for s in store.scores()}
    for result in finished.values():  # a crash between the two appends leaves an episode (partly) unscored
        missing = [j for j in judges if (result.episode_id, j.name) not in scored]
        if missing:
            store.append_scores(await judge(result, missing))
    todo = [s for s in specs if s.episode_id not in finished]
    if on_start:
        on_start(len(specs), len(specs) - len(todo))

    gateway = Gateway(config.endpoint_concurrency, config.retry, seed=config.seed)
    models = ModelFactory(timeout_s=config.request_timeout_s)
    limits = EpisodeLimits(max_steps=config.max_steps, max_turns=config.max_turns, timeout_s=config.episode_timeout_s)
    try:
        if todo:
            async with open_agent(agent_spec, models, config.max_tokens, config.temperature) as agent:
                await _run_all(todo, config, pack, agent, gateway, limits, judges, store, on_episode)
    finally:
        await models.aclose()
        summary = {"run_id": store.root.name, **summarize(store.episodes(), store.scores(), planned=len(specs))}
        store.write_summary(summary)
    return store, summary


async def _run_all(
    todo: list[EpisodeSpec],
    config: RunConfig,
    pack: WorldPack,
    agent: Agent,
    gateway: Gateway,
    limits: EpisodeLimits,
    judges: list[Judge],
    store: RunStore,
    on_episode: OnEpisode | None,
) -> None:
    queue = list(reversed(todo))
    labels = (agent.name if config.agent in ("oracle", "null") else config.agent, config.user)

    async def worker() -> None:
        while queue:
            spec = queue.pop()
            user = build_user(config.user)
            stressors = build_stressors(config.stressors, spec.seed)
            result = await run_episode(spec, pack, agent, user, stressors, gateway, limits, labels)
            scores = await judge(result, judges)
            # Both appends happen without an await in between: one writer, records never interleave.
            store.append_episode(result)
            store.append_scores(scores)
            if on_episode:
                on_episode(result, scores)

    # A TaskGroup cancels the other workers if one fails, so nothing keeps running unobserved.
    async with asyncio.TaskGroup() as tg:
        for _ in range(min(config.concurrency, len(todo))):
            tg.create_task(worker())
