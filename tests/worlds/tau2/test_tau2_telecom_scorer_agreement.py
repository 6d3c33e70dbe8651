"""squall's ``tau2_reward`` against the wheel's own telecom scorer (``telecom/scorer.py``'s ``telecom_scorer``:
``evaluate_required_actions(check_reward_basis=True)`` and ``env_assertions``, run as written by ``wheel_scorer``).

Each task of ``tasks_small`` and of τ²'s test split is played by a replaying agent through a real squall episode on
``tau2:telecom`` with the scripted user doing, on its own phone, the user-side acts the agent asks for (dual control:
``personas.user_acts``). The episode's trace — the task's initialization actions first, then every call of both sides
in the order squall recorded them — is then replayed on the wheel's ``TelecomAgentTools`` and ``TelecomUserTools``
(kept in step by the wheel's ``Environment``), and the wheel's scorer reads that environment (its ``store_as``) and
the trace's calls (the agent's in its stored agent state, the user's as the user simulator's own messages).

Trajectories: the gold, and every damage that applies to the task — the last agent action dropped, its last argument
changed, a write nobody asked for (first of all, the user's line suspended, found by looking the user up), the last
user-side act skipped (the agent never asks for it). "A required fact not said" has no telecom case: no telecom task has
information to communicate or a natural-language assertion. Verdicts must be equal on every trajectory; each
disagreement is listed by task and damage.

Where squall's reading and the wheel's port differ, neither shows here, so nothing is excluded: the wheel matches a
gold action whose ``compare_args`` is None on all the call's arguments and the gold's alike (``deep_equal_unordered``),
τ²-bench and squall on the call's own argument names; and the wheel also accepts a call whose name ends in
``_<name>``. Telecom's ACTION check is in the reward basis of its transfer tasks only, whose one gold action
(``transfer_to_human_agents``) compares no arguments, and no call here is renamed.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

import pytest
from pydantic import ValidationError

from judges.tau2.tau2_reward import Tau2Reward
from personas import ScriptedUser, parse_user_spec
from sim.agents.oracle_words import ask_user_to_act
from sim.core import AgentRuntime, EpisodeGold, EpisodeResult, Event, ToolCall
from sim.episode.env import EpisodeEnv, EpisodeSpec
from sim.episode.loop import run_episode
from sim.llm.gateway import Gateway
from worlds.registry import load_world

source = pytest.importorskip("worlds.tau2.source")
try:
    source.package_root()
except source.Tau2Error:
    pytest.skip("the inspect-evals wheel is not installed (make setup)", allow_module_level=True)

from tests.worlds.tau2.test_tau2_scorer_agreement import changed_argument  # noqa: E402
from tests.worlds.tau2.wheel_scorer import (  # noqa: E402
    CORRECT,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    ChatToolCall,
    TaskState,
    wheel_scorer,
)
from tests.worlds.tau2.wheel_tools import WheelToolError  # noqa: E402
from worlds.tau2 import Tau2Pack  # noqa: E402

Side = Literal["assistant", "user", "unasked"]
Step = tuple[Side, str, dict[str, Any]]
INSTANCE = "agreement"


@dataclass(frozen=True)
class Trajectory:
    task_id: str
    damage: str
    steps: list[Step]


def user_phone(raw: dict[str, Any]) -> str:
    """The number the task's user is known by (its ``set_user_info`` initialization action)."""
    actions = raw["initial_state"]["initialization_actions"]
    return str(next(a["arguments"]["phone_number"] for a in actions if a["func_name"] == "set_user_info"))


def trajectories(raw: dict[str, Any]) -> list[Trajectory]:
    """The gold trajectory and each damaged one that applies to the task."""
    gold: list[Step] = [(a["requestor"], a["name"], a["arguments"]) for a in raw["evaluation_criteria"]["actions"]]
    out = [Trajectory(raw["id"], "gold", gold)]

    def last(side: Side) -> int | None:
        return max((i for i, step in enumerate(gold) if step[0] == side), default=None)

    if (agent := last("assistant")) is not None:
        out.append(Trajectory(raw["id"], "agent action dropped", gold[:agent] + gold[agent + 1 :]))
        side, name, args = gold[agent]
        if args:
            changed: Step = (side, *changed_argument((name, args)))
            out.append(Trajectory(raw["id"], "argument changed", [*gold[:agent], changed, *gold[agent + 1 :]]))
    out.append(Trajectory(raw["id"], "unasked write", [("unasked", "suspend_line", {}), *gold]))
    if (user := last("user")) is not None:
        out.append(Trajectory(raw["id"], "user act skipped", gold[:user] + gold[user + 1 :]))
    return out


class DualReplayAgent:
    """Makes the trajectory's agent calls in order; where the user must act, it ends its turn asking for the user's
    next acts by name (the oracle's words), and goes on in the next turn. The unasked write looks the user's line
    up by phone number first, as an agent would."""

    name = "replay"

    def __init__(self, trajectory: Trajectory, phone: str) -> None:
        self.steps, self.phone, self.at = trajectory.steps, phone, 0

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        asked: list[tuple[str, dict[str, object]]] = []
        while self.at < len(self.steps):
            side, name, args = self.steps[self.at]
            if side != "user" and asked:
                break
            self.at += 1
            if side == "user":
                asked.append((name, dict(args)))
            elif side == "unasked":
                await self._suspend_users_line(runtime)
            else:
                await runtime.call(ToolCall(id=f"c{self.at}", name=name, arguments=copy.deepcopy(args)), step=self.at)
        return ask_user_to_act(asked) if asked else "Done."

    async def _suspend_users_line(self, runtime: AgentRuntime) -> None:
        lookup = ToolCall(id="who", name="get_customer_by_phone", arguments={"phone_number": self.phone})
        customer = (await runtime.call(lookup, step=self.at)).content
        for line_id in customer["line_ids"]:
            call = ToolCall(id=f"l{line_id}", name="get_details_by_id", arguments={"id": line_id})
            if (await runtime.call(call, step=self.at)).content["phone_number"] == self.phone:
                arguments = {"customer_id": customer["customer_id"], "line_id": line_id, "reason": "routine check"}
                await runtime.call(ToolCall(id="unasked", name="suspend_line", arguments=arguments), step=self.at)


async def squall_episode(pack: Tau2Pack, raw: dict[str, Any], trajectory: Trajectory) -> tuple[EpisodeResult, bool]:
    task = next(t for t in pack.tasks() if t.id == trajectory.task_id)
    user = ScriptedUser(parse_user_spec("scripted"))

    def agent(gold: EpisodeGold) -> DualReplayAgent:
        return DualReplayAgent(trajectory, user_phone(raw))

    env = EpisodeEnv(pack, agent, user, Gateway(), ("replay", "scripted"))
    result = await run_episode(EpisodeSpec(task=task, trial=0, seed=0), env)
    score = await Tau2Reward().score(result)
    assert score.value is not None, (trajectory, score.errors)
    return result, score.value == 1.0


class WheelTelecom:
    """Replays a squall trace on the wheel's telecom classes and scores it with the wheel's ``telecom_scorer``
    (``scorer``), which finds both sides and the agent's calls in the sample's store (``store``)."""

    def __init__(self, scorer: Any, store: dict[str, Any]) -> None:
        self.scorer, self.store = scorer, store
        self.environment = importlib.import_module("inspect_evals.tau2.telecom.environment")
        self.agent_state = importlib.import_module("inspect_evals.tau2.common.agents").StoredAgentState

    async def verdict(self, raw: dict[str, Any], result: EpisodeResult) -> bool:
        agent, user = self.environment.TelecomAgentTools(), self.environment.TelecomUserTools()
        agent.initialize()
        user.initialize()
        env = self.environment.Environment(user, agent)
        for action in raw["initial_state"]["initialization_actions"]:
            side = user if action["env_type"] == "user" else agent
            getattr(side, action["func_name"])(**copy.deepcopy(action.get("arguments") or {}))
            env.sync_tools()
        agent_calls: list[ChatMessage] = []
        said: list[ChatMessage] = []  # the wheel's state is the user simulator's: the agent's replies are user turns
        for ev in (ev for ev in result.events if not ev.replayed):
            if ev.kind == "agent_message":
                said.append(ChatMessageUser(content=ev.content or ""))
            if ev.call is None or ev.kind not in ("tool_call", "user_tool_call"):
                continue
            by_user = ev.kind == "user_tool_call"
            env.sync_tools()  # the wheel's tools sync as they are looked up
            # a refused call (ToolError, or arguments off the schema: ValidationError) leaves both sides as they were
            with contextlib.suppress(WheelToolError, ValidationError):
                getattr(user if by_user else agent, ev.call.name)(**copy.deepcopy(ev.call.arguments))
            env.sync_tools()
            call = ChatToolCall(function=ev.call.name, arguments=ev.call.arguments)
            # the user simulator's calls are its own (assistant) messages; the agent's are in its stored state
            (said if by_user else agent_calls).append(ChatMessageAssistant(tool_calls=[call]))
        self.store.clear()
        self.store.update({"TelecomAgentTools": agent, "TelecomUserTools": user})
        self.store[INSTANCE] = self.agent_state(messages=agent_calls)
        state = TaskState(metadata={"instance": INSTANCE, "task": raw}, messages=said)
        return bool((await self.scorer.telecom_scorer()(state, None)).value == CORRECT)


@cache
def raw_tasks() -> dict[str, dict[str, Any]]:
    return {str(t["id"]): t for t in source.read_json(source.domain_file("telecom", "tasks.json.gz"))}


@pytest.mark.slow
def test_squall_and_the_wheels_telecom_scorer_agree_on_gold_and_damaged_trajectories() -> None:
    packs = [load_world(f"tau2:telecom:{split}") for split in ("small", "test")]  # before the wheel is entered
    tasks = {t.id: pack for pack in packs if isinstance(pack, Tau2Pack) for t in pack.tasks()}
    assert len(tasks) == 60
    played = [t for task_id in tasks for t in trajectories(raw_tasks()[task_id])]
    ours = [asyncio.run(squall_episode(tasks[t.task_id], raw_tasks()[t.task_id], t)) for t in played]
    store: dict[str, Any] = {}
    with wheel_scorer("telecom.scorer", store) as scorer:
        wheel = WheelTelecom(scorer, store)
        theirs = [asyncio.run(wheel.verdict(raw_tasks()[t.task_id], r)) for t, (r, _) in zip(played, ours, strict=True)]
    verdicts = [(t, mine, wheel_says) for t, (_, mine), wheel_says in zip(played, ours, theirs, strict=True)]
    disagreements = [f"task {t.task_id} ({t.damage}): squall {a}, wheel {b}" for t, a, b in verdicts if a != b]
    kinds = {t.damage for t in played}
    assert kinds == {"gold", "agent action dropped", "argument changed", "unasked write", "user act skipped"}
    assert disagreements == [], "\n".join(disagreements)
    assert sum(ev.kind == "user_tool_call" for result, _ in ours for ev in result.events) > len(played)  # dual control
    # the damage is real: every gold trajectory passes, and the wheel fails most damaged ones
    assert all(b for t, _, b in verdicts if t.damage == "gold")
    damaged = [b for t, _, b in verdicts if t.damage != "gold"]
    assert sum(not b for b in damaged) > len(damaged) // 2
