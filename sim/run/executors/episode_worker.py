"""The worker side of every multi-process backend: one model-access session, episodes in and traces out as JSON.

A local worker process (``--workers N``, ``worker_process``) and a Ray actor (``--backend ray``) run this same
class: the backends differ only in how specs reach it and traces come back.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

from sim.agents.factory import parse_agent_spec
from sim.episode.loop import EpisodeSpec
from sim.run.executors.base import EpisodeRunner
from sim.run.executors.worker_share import WorkerConfig
from sim.run.session import episode_session
from worlds.registry import load_world


class EpisodeWorker:
    """One model-access session for its lifetime (its own gateway, agent and scheduler with its share of the run's
    limits); plays ``EpisodeSpec``s sent as JSON and answers ``EpisodeResult`` JSON. A plain class: importable
    without Ray (``ray.remote`` wraps it there)."""

    def __init__(self, config_json: str, log_root: str | None) -> None:
        self._config_json = config_json
        self._log_root = Path(log_root) if log_root is not None else None
        self._stack = AsyncExitStack()
        self._run_one: EpisodeRunner | None = None

    async def open(self) -> None:
        """Load the world and open model access (the agent's model is resolved here: a ConfigError if unusable)."""
        config = WorkerConfig.model_validate_json(self._config_json)
        pack = load_world(config.world)  # the driver already ran its gold plans
        session = episode_session(config, parse_agent_spec(config.agent), pack, self._log_root)
        self._run_one = (await self._stack.enter_async_context(session)).run_one

    async def play(self, spec_json: str) -> str:
        assert self._run_one is not None, "open() first"
        result = await self._run_one(EpisodeSpec.model_validate_json(spec_json))
        return result.model_dump_json()

    async def close(self) -> None:
        await self._stack.aclose()
