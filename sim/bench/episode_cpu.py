"""CPU per episode of the loop, the world and the simulated user, with no HTTP and no judges.

    python -m sim.bench.episode_cpu --world smart_home --agent mock --episodes 200 [--stressors all]
        [--stressor-mode isolated] [--setup isolated] [--user scripted:terse] [--trace out.jsonl]

``--agent mock`` is the native agent on an in-process model that answers as ``squall bench``'s mock does (the
``first_tool`` policy: call the first offered tool with example arguments, then answer in text); ``oracle`` and
``naive`` are the calibration agents. Episodes run one after the other (the CPU of each is its own) from the run
plan a ``squall run`` with the same options would make. ``--trace`` writes every result as JSON without its
timings, one line per episode: two checkouts' files (run with one PYTHONHASHSEED: a task state's key order follows
set order) are byte-identical when their episodes are.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from personas import build_user, parse_user_specs
from sim.agents.factory import AgentSpec, open_agent_factory
from sim.config.run_config import RunConfig
from sim.core import ModelRequest, ModelResponse, ToolCall
from sim.episode.env import EpisodeEnv, EpisodeLimits
from sim.episode.loop import run_episode
from sim.episode.state_track import GoldStateCache
from sim.llm.gateway import Gateway
from sim.llm.transports.base import Reply
from sim.mockllm.policies import example_value
from sim.run.plan import make_plan
from worlds.registry import load_world
from worlds.stressors import build_stressors

MOCK_MODEL = "mock-first-tool"
TIMINGS = ("t", "duration_s", "latency_s", "waiting_s", "working_s")
"""Fields that hold measured time, which differs from run to run: left out of ``--trace``."""


class FirstToolTransport:
    """The mock server's ``first_tool`` policy, in process: deterministic, tokens counted from the request."""

    async def send(self, request: ModelRequest) -> Reply:
        tokens = sum(len(m.content) // 4 + 1 for m in request.messages)
        if (request.messages and request.messages[-1].role == "tool") or not request.tools:
            return Reply(ModelResponse(text="Done.", input_tokens=tokens, output_tokens=2))
        tool = request.tools[0]
        call = ToolCall(id="call_1", name=tool.name, arguments=example_value(tool.parameters))
        return Reply(ModelResponse(tool_calls=(call,), input_tokens=tokens, output_tokens=8))

    async def aclose(self) -> None:
        return None


def _untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


async def play(config: RunConfig, episodes: int, trace: bool) -> tuple[int, float, list[str]]:
    """Play the plan's first ``episodes``; returns (episodes played, CPU seconds of the episodes alone, each result
    as a line of JSON without its timings when ``trace``)."""
    pack = load_world(config.world)
    plan = list(make_plan(config, pack))[:episodes]
    gateway = Gateway()
    gateway.register(MOCK_MODEL, FirstToolTransport())
    spec = AgentSpec("native", MOCK_MODEL) if config.agent == "mock" else AgentSpec(config.agent)  # type: ignore[arg-type]
    users = {u.label: u for u in parse_user_specs(config.user)}
    only_user = next(iter(users.values()))
    tool_names = [s.name for s in pack.tool_specs()]
    limits = EpisodeLimits(max_steps=config.max_steps, max_turns=config.max_turns)
    gold_states = GoldStateCache()
    lines: list[str] = []
    cpu = 0.0
    async with open_agent_factory(spec, gateway, config.max_tokens, config.temperature) as agent:
        for episode in plan:
            started = time.process_time()
            user = build_user(users[episode.user] if episode.user else only_user)
            items = config.stressors if episode.stressors is None else episode.stressors
            stressors = tuple(build_stressors(items, episode.seed, tool_names))
            labels = (spec.label, only_user.label)
            env = EpisodeEnv(
                pack, agent, user, gateway, labels, stressors, limits, config.setup, gold_states=gold_states
            )
            result = await run_episode(episode, env)
            cpu += time.process_time() - started
            if trace:
                lines.append(json.dumps(_untimed(result.model_dump(mode="json"))) + "\n")
    return len(plan), cpu, lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--world", default="smart_home")
    parser.add_argument("--agent", default="mock", help="mock | oracle | naive | null")
    parser.add_argument("--user", default="scripted")
    parser.add_argument("--stressors", default="")
    parser.add_argument("--stressor-mode", default="cumulative")
    parser.add_argument("--setup", default="cumulative")
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--trials", type=int, default=0, help="0: enough to play --episodes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--trace", default=None, help="write each result, timings left out, as JSON lines")
    args = parser.parse_args(argv)
    stressors = [s for s in args.stressors.split(",") if s]
    config = RunConfig(
        world=args.world,
        agent="oracle",  # checked by RunConfig; the bench builds its own agent from --agent
        user=args.user,
        stressors=stressors,
        stressor_mode=args.stressor_mode,
        setup=args.setup,
        trials=args.trials or max(1, args.episodes),
        seed=args.seed,
    )
    config = config.model_copy(update={"agent": args.agent})
    played, cpu, lines = asyncio.run(play(config, args.episodes, args.trace is not None))
    if args.trace is not None:
        Path(args.trace).write_text("".join(lines), encoding="utf-8")
    print(json.dumps({"episodes": played, "cpu_s": round(cpu, 4), "cpu_ms_per_episode": round(1000 * cpu / played, 3)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
