"""``execute``: one run in this process — prepare, start model access, drive the episodes, summarise.

Order matters for "bad input writes nothing": the world (with its gold plans run by execution), the
plan, the user, the stressors, the judges, the run folder's name and the agent's model are all checked
— and the embedded model server started — before the run folder is created (``sim.prepare``, then
``episode_session`` below, then ``sim.driver.drive``, which creates it).

The backend-agnostic parts live in ``sim.driver`` (store, resume, judge queue, summary) and
``sim.executors`` (where episodes run). This module keeps the one place that builds model access and plays
an episode in this process: ``episode_session`` — the gateway, the agent, the episode limits and the
``run_episode`` call. A Ray executor's workers open the same session, one per worker process.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from personas import UserSpec, build_user, parse_user_specs
from sim.agents.factory import AgentSpec, AgentUnavailable, open_agent
from sim.config import RunConfig
from sim.core import EpisodeResult, Event, User, WorldPack
from sim.deadline import LoopLag
from sim.driver import OnEpisode, drive
from sim.episode import EpisodeLimits, EpisodeSpec, run_episode
from sim.executors import CostCeiling, EpisodeRunner, Executor, InProcessExecutor
from sim.judging import open_judges
from sim.llm.gateway import Gateway
from sim.llm.model_access import ModelUnavailable, open_model
from sim.prepare import PreparedRun, load_checked_world, manifest, prepare
from sim.store import RunStore, write_json_atomic
from worlds.stressors import build_stressors

if TYPE_CHECKING:
    from sim.llm.cache import ResponseCache

__all__ = ["EpisodeSession", "episode_session", "execute", "load_checked_world", "manifest"]


async def execute(
    config: RunConfig, on_start: Callable[[int, int], None] | None = None, on_episode: OnEpisode | None = None
) -> tuple[RunStore, dict[str, Any]]:
    """Run every planned episode not yet in the store; returns the store and the run summary."""
    if config.backend == "ray":
        from sim.executors.ray_cluster import require_ray

        require_ray(config)
    run = await prepare(config)
    async with open_judges(config) as judges, _open_executor(config, run) as (executor, cost):
        if config.max_cost is not None:
            executor = CostCeiling(executor, cost, config.max_cost)
        store, summary = await drive(run, judges, executor, on_start, on_episode)
    if isinstance(executor, CostCeiling) and executor.reached is not None:
        summary["stopped_by_max_cost"] = executor.reached
        write_json_atomic(store.root / "summary.json", summary)
    return store, summary


@asynccontextmanager
async def _open_executor(config: RunConfig, run: PreparedRun) -> AsyncIterator[tuple[Executor, Callable[[], float]]]:
    """Where the episodes play, and what their model calls have cost so far: this process's event loop, or Ray
    workers (``--backend ray``; Ray is imported only then). Opened before the run folder exists."""
    if config.backend == "ray":
        from sim.executors.ray_executor import ray_executor

        async with ray_executor(config, run) as remote:
            yield remote, remote.cost
        return
    async with episode_session(config, run.agent_spec, run.pack, run.root) as session:
        yield InProcessExecutor(session.run_one, config.concurrency), session.cost


def _cache(config: RunConfig) -> ResponseCache | None:
    if config.cache == "off":
        return None
    from sim.llm.cache import ResponseCache

    return ResponseCache(config.cache_dir, config.cache)


def build_gateway(config: RunConfig, decision_log: Path | None = None) -> Gateway:
    """A process's one gateway, as the config says (limits, retries, scheduler, cache); close it with aclose()."""
    return Gateway(
        config.requests_per_endpoint,
        config.retry,
        seed=config.seed,
        request_timeout_s=config.request_timeout_s,
        static=config.scheduler == "static",
        cache=_cache(config),
        scheduler=config.build_scheduler(decision_log),
    )


# ======================================================================================================
# Model access and the episode call: the one place a process builds its gateway and agent and plays an
# episode. Everything else (store, judging, summary, which specs to run) is the driver's.
# ======================================================================================================


@dataclass(frozen=True)
class EpisodeSession:
    """A process's model access: play one episode, and what its model calls have cost so far."""

    run_one: EpisodeRunner
    cost: Callable[[], float]


@asynccontextmanager
async def episode_session(
    config: RunConfig,
    agent_spec: AgentSpec,
    pack: WorldPack,
    run_root: Path | None = None,
    make_user: Callable[[UserSpec], User] | None = None,
    watch: Callable[[Event], None] | None = None,
) -> AsyncIterator[EpisodeSession]:
    """Open model access for this process and yield its ``EpisodeSession``; closes it on exit.

    ``make_user`` builds the user of each episode instead of ``personas.build_user`` (``squall chat``: the person at
    the terminal); ``watch`` sees every event as it is recorded.

    Opened before the run folder exists: an agent whose model cannot be used fails here, nothing written.
    The scheduler's decision log goes to ``run_root/scheduler.jsonl`` (opened at its first decision)."""
    async with AsyncExitStack() as stack:
        # --- model access: the run's one gateway, and the agent on it (resolved before the run folder exists) ---
        gateway = build_gateway(config, run_root / "scheduler.jsonl" if run_root is not None else None)
        stack.push_async_callback(gateway.aclose)
        try:
            agent = await stack.enter_async_context(
                open_agent(agent_spec, gateway, config.max_tokens, config.temperature, config.text_protocol)
            )
        except AgentUnavailable as exc:
            raise config.problem("agent", str(exc)) from exc
        loop_lag = LoopLag()
        lag_task = asyncio.create_task(loop_lag.run())
        stack.callback(lag_task.cancel)
        limits = EpisodeLimits(
            max_steps=config.max_steps, max_turns=config.max_turns, timeout_s=config.episode_timeout_s
        )
        agent_label = agent.name if agent_spec.model is None else config.agent
        tool_names = [s.name for s in pack.new_world(0).specs()]  # scenarios apply only to tools the world has
        users = {u.label: u for u in parse_user_specs(config.user)}
        only_user = next(iter(users.values()))
        user_model: str | None = None
        if any(u.kind == "llm" for u in users.values()):
            try:
                user_model = await stack.enter_async_context(open_model(gateway, config.user_model))
            except ModelUnavailable as exc:
                raise config.problem("user_model", str(exc)) from exc

        async def run_one(spec: EpisodeSpec) -> EpisodeResult:
            user_spec = users[spec.user] if spec.user else only_user
            user = make_user(user_spec) if make_user is not None else build_user(user_spec, user_model)
            items = config.stressors if spec.stressors is None else spec.stressors
            stressors = build_stressors(items, spec.seed, tool_names)
            labels = (agent_label, user_spec.label)
            return await run_episode(
                spec,
                pack,
                agent,
                user,
                stressors,
                gateway,
                limits,
                labels,
                loop_lag.total,
                setup=config.setup,
                watch=watch,
            )

        yield EpisodeSession(run_one, lambda: gateway.totals.cost)
