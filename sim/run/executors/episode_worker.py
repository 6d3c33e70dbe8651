"""The worker side of every multi-process backend: one model-access session, episodes in and traces out.

A local worker process (``--workers N``, ``worker_process``) and a Ray actor (``--backend ray``) run this same
class: the backends differ only in how specs reach it and answers come back.

Where the run's judges allow it (``judges_in_workers``), a worker also judges each episode it played and answers
the store's lines, encoded here: the driver then stores them as they came, never parsing a trace (parsing,
judging and re-encoding every trace cost the driver ~1 ms per request: a third of a worker's core with two).
Judges that ask a model (``--judge-model``: one judge model, on the driver's gateway, under the run's limits) or
need the judge thread (the embedding argument matcher) stay in the driver: a worker then answers the trace.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

from sim.agents.factory import parse_agent_spec
from sim.config.run_config import RunConfig
from sim.core import Judge
from sim.episode.loop import EpisodeSpec
from sim.judging.judge_set import judge, judges_in_thread, open_judges, uses_judge_model
from sim.run.event_loop import settled
from sim.run.executors.base import EpisodeDone, EpisodeRunner, JudgedEpisode
from sim.run.executors.worker_share import WorkerConfig
from sim.run.prepare import run_world
from sim.run.session import episode_session
from sim.store.episode_json import encode_episode
from sim.store.writer import store_line


def judges_in_workers(config: RunConfig) -> bool:
    """Whether the run's workers judge what they play (else the driver judges the traces they send)."""
    return not uses_judge_model(config) and not judges_in_thread(config)


class EpisodeWorker:
    """One model-access session for its lifetime (its own gateway, agent and scheduler with its share of the run's
    limits); plays ``EpisodeSpec``s sent as JSON. ``play`` answers the ``EpisodeResult`` JSON (the driver judges
    it); ``play_judged`` — given a ``score_set`` — judges it here and answers a ``JudgedEpisode``. A plain class:
    importable without Ray (``ray.remote`` wraps it there)."""

    def __init__(self, config_json: str, log_root: str | None, score_set: str | None = None) -> None:
        self._config_json = config_json
        self._log_root = Path(log_root) if log_root is not None else None
        self._score_set = score_set
        self._stack = AsyncExitStack()
        self._run_one: EpisodeRunner | None = None
        self._judges: list[Judge] | None = None

    async def open(self) -> None:
        """Load the world and open model access (the agent's model is resolved here: a ConfigError if unusable);
        build the run's judges where this worker judges."""
        config = WorkerConfig.model_validate_json(self._config_json)
        pack = run_world(config)  # the driver already ran its gold plans
        session = episode_session(config, parse_agent_spec(config.agent), pack, self._log_root)
        self._run_one = (await self._stack.enter_async_context(session)).run_one
        if self._score_set is not None:
            self._judges = await self._stack.enter_async_context(open_judges(config))
        settled()

    async def play(self, spec_json: str) -> str:
        assert self._run_one is not None, "open() first"
        result = await self._run_one(EpisodeSpec.model_validate_json(spec_json))
        return result.model_dump_json()

    async def play_judged(self, spec_json: str) -> JudgedEpisode:
        assert self._run_one is not None and self._judges is not None and self._score_set is not None, (
            "open() with a score set first"
        )
        result = await self._run_one(EpisodeSpec.model_validate_json(spec_json))
        scores = await judge(result, self._judges, self._score_set)
        encoded = encode_episode(result)
        lines = tuple(store_line(s) for s in scores)
        return JudgedEpisode(EpisodeDone.of(result, scores), encoded.line, lines, encoded.toolkit)

    async def close(self) -> None:
        await self._stack.aclose()
