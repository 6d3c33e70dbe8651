"""The one place a process builds its model access and plays an episode: the gateway, the agent, the users, the
episode limits and the ``run_episode`` call. Everything else (store, judging, summary, which specs to run) is the
driver's; the in-process executor and each Ray worker open one session."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from personas import UserSpec, build_user, parse_user_specs
from sim.agents.agent_view import AgentView
from sim.agents.code.sandbox import CodeLimits
from sim.agents.factory import AgentOpener, AgentSpec, AgentUnavailable, open_agent_factory
from sim.config.gateway import build_gateway
from sim.config.run_config import RunConfig
from sim.core import EpisodeResult, Event, User, WorldPack
from sim.episode.deadline import LoopLag
from sim.episode.env import EpisodeEnv, EpisodeLimits, EpisodeSpec
from sim.episode.loop import run_episode
from sim.episode.state_track import GoldStateCache
from sim.llm.model_access import ModelUnavailable, open_model
from sim.run.executors import EpisodeRunner
from worlds.stressors import build_stressors


@dataclass(frozen=True)
class EpisodeSession:
    """A process's model access: play one episode, and what its model calls have cost so far."""

    run_one: EpisodeRunner
    cost: Callable[[], float]


def code_limits(config: RunConfig) -> CodeLimits:
    """What a ``code:`` agent's programs may use."""
    return CodeLimits(timeout_s=config.code_timeout_s, memory_mb=config.code_memory_mb)


def agent_view(config: RunConfig) -> AgentView:
    """What the agent under test is shown: --system-prompt, --tool-descriptions, --param-descriptions."""
    return AgentView(config.system_prompt, config.tool_descriptions, config.param_descriptions == "drop")


@asynccontextmanager
async def episode_session(
    config: RunConfig,
    agent_spec: AgentSpec,
    pack: WorldPack,
    run_root: Path | None = None,
    make_user: Callable[[UserSpec], User] | None = None,
    watch: Callable[[Event], None] | None = None,
    open_agent: AgentOpener | None = None,
) -> AsyncIterator[EpisodeSession]:
    """Open model access for this process and yield its ``EpisodeSession``; closes it on exit.

    ``make_user`` builds the user of each episode instead of ``personas.build_user`` (``squall chat``: the person at
    the terminal); ``watch`` sees every event as it is recorded; ``open_agent`` opens the agents instead of
    ``agent_spec`` (``squall serve --mcp``).

    Opened before the run folder exists: an agent whose model cannot be used fails here, nothing written.
    The scheduler's decision log goes to ``run_root/scheduler.jsonl`` (opened at its first decision)."""
    async with AsyncExitStack() as stack:
        # --- model access: the run's one gateway, and the agent on it (resolved before the run folder exists) ---
        gateway = build_gateway(config, run_root / "scheduler.jsonl" if run_root is not None else None)
        stack.push_async_callback(gateway.aclose)
        try:
            opening = (
                open_agent(gateway)
                if open_agent is not None
                else open_agent_factory(
                    agent_spec,
                    gateway,
                    config.max_tokens,
                    config.temperature,
                    config.text_protocol,
                    agent_view(config),
                    code_limits(config),
                )
            )
            agent = await stack.enter_async_context(opening)
        except AgentUnavailable as exc:
            raise config.problem("agent", str(exc)) from exc
        loop_lag = LoopLag()
        lag_task = asyncio.create_task(loop_lag.run())
        stack.callback(lag_task.cancel)
        limits = EpisodeLimits(
            max_steps=config.max_steps, max_turns=config.max_turns, timeout_s=config.episode_timeout_s
        )
        agent_label = agent_spec.label if agent_spec.model is None else config.agent
        gold_states = GoldStateCache()  # the gold's task states, shared by this process's episodes
        tool_names = [s.name for s in pack.tool_specs()]  # scenarios apply only to tools the world has
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
            env = EpisodeEnv(
                pack,
                agent,
                user,
                gateway,
                labels,
                tuple(stressors),
                limits,
                setup=config.setup,
                loop_lag=loop_lag.total,
                watch=watch,
                gold_states=gold_states,
            )
            return await run_episode(spec, env)

        yield EpisodeSession(run_one, lambda: gateway.totals.cost)
