"""squall's ``tau2_reward`` against the wheel's own τ² scorer (``wheel_scorer``), on the same trajectories.

Each task of τ²'s test split (airline and retail) is played by a replaying agent through a real squall episode
(world, stressor chain, recorder, judge) and, call for call, through the wheel's tool classes scored by the wheel's
``db_match`` and ``score_communicated_info``: the gold trajectory, and a damaged one (the kinds in turn, among those
that apply: a write dropped, a write's argument changed, a write nobody asked for, a required fact left unsaid). The
test split and one damage per task, not more: the wheel's ``db_match`` dumps and hashes a whole database per trajectory.
The verdicts must be equal on every trajectory; each disagreement is listed by task and damage.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import types
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest
from pydantic import ValidationError

from judges.tau2.tau2_reward import Tau2Reward
from personas import ScriptedUser, parse_user_spec
from sim.core import AgentRuntime, EpisodeGold, Event, ToolCall
from sim.episode.env import EpisodeEnv, EpisodeSpec
from sim.episode.loop import run_episode
from sim.llm.gateway import Gateway
from worlds.registry import load_world

source = pytest.importorskip("worlds.tau2.source")
try:
    source.package_root()
except source.Tau2Error:
    pytest.skip("the inspect-evals wheel is not installed (make setup)", allow_module_level=True)

from tests.worlds.tau2.wheel_scorer import CORRECT, ChatMessageUser, TaskState, wheel_scorer  # noqa: E402
from tests.worlds.tau2.wheel_tools import WheelToolError, back_to_base  # noqa: E402
from worlds.tau2 import Tau2Pack  # noqa: E402

NOT_DB_TOOLS = {"calculate", "transfer_to_human_agents"}
READ_PREFIXES = ("get_", "list_", "search_", "find_", "calculate", "think", "transfer_")


def is_write(name: str) -> bool:
    return not name.startswith(READ_PREFIXES)


Call = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Trajectory:
    task_id: str
    damage: str
    calls: list[Call]
    reply: str


def unasked_write(domain: str, calls: Sequence[Call]) -> Call | None:
    """A write the user never asked for, on the user the task is about (None: the gold names no user)."""
    user = next((args["user_id"] for _, args in calls if "user_id" in args), None)
    if user is None:
        return None
    if domain == "airline":
        return "send_certificate", {"user_id": user, "amount": 150}
    address = {"address1": "1 Elm St", "address2": "", "city": "Austin", "state": "TX", "country": "USA"}
    return "modify_user_address", {"user_id": user, **address, "zip": "78701"}


def changed_argument(call: Call) -> Call:
    """The call with its last argument altered: a number moved by one, a string edited, a list shortened."""
    name, args = call
    args = copy.deepcopy(args)
    key = list(args)[-1]
    value = args[key]
    if isinstance(value, bool):
        args[key] = not value
    elif isinstance(value, int | float):
        args[key] = value + 1
    elif isinstance(value, list) and value:
        args[key] = value[:-1]
    else:
        args[key] = f"{value}X"
    return name, args


def trajectories(domain: str, raw: dict[str, Any], turn: int) -> list[Trajectory]:
    """The gold trajectory and one damaged one: the ``turn``-th kind of those that apply to the task."""
    criteria = raw["evaluation_criteria"]
    gold: list[Call] = [(a["name"], a["arguments"]) for a in criteria.get("actions") or []]
    facts = list(criteria.get("communicate_info") or [])
    said = "Done. " + " ".join(f"Note: {fact}." for fact in facts)
    out = [Trajectory(raw["id"], "gold", gold, said)]
    writes = [i for i, (name, _) in enumerate(gold) if is_write(name)]
    damaged: list[Trajectory] = []
    if writes:
        last = writes[-1]
        damaged.append(Trajectory(raw["id"], "write dropped", gold[:last] + gold[last + 1 :], said))
        changed = [*gold[:last], changed_argument(gold[last]), *gold[last + 1 :]]
        damaged.append(Trajectory(raw["id"], "argument changed", changed, said))
    if (extra := unasked_write(domain, gold)) is not None:
        damaged.append(Trajectory(raw["id"], "unasked write", [*gold, extra], said))
    if facts:
        unsaid = "Done. " + " ".join(f"Note: {fact}." for fact in facts[1:])
        damaged.append(Trajectory(raw["id"], "fact unsaid", gold, unsaid))
    return out + ([damaged[turn % len(damaged)]] if damaged else [])


class ReplayAgent:
    """Makes the trajectory's calls in its first turn and says its reply; later turns only acknowledge."""

    name = "replay"

    def __init__(self, trajectory: Trajectory) -> None:
        self.trajectory = trajectory

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        if runtime.turn > 0:
            return "Is there anything else?"
        for step, (name, args) in enumerate(self.trajectory.calls):
            await runtime.call(ToolCall(id=f"c{step}", name=name, arguments=copy.deepcopy(args)), step=step)
        return self.trajectory.reply


async def squall_verdict(pack: Tau2Pack, trajectory: Trajectory) -> bool:
    task = next(t for t in pack.tasks() if t.id == trajectory.task_id)
    user = ScriptedUser(parse_user_spec("scripted"))

    def agent(gold: EpisodeGold) -> ReplayAgent:
        return ReplayAgent(trajectory)

    env = EpisodeEnv(pack, agent, user, Gateway(), ("replay", "scripted"))
    result = await run_episode(EpisodeSpec(task=task, trial=0, seed=0), env)
    score = await Tau2Reward().score(result)
    assert score.value is not None, (trajectory, score.errors)
    return score.value == 1.0


class WheelPlayer:
    """Plays each trajectory on the wheel's tools and scores it with the wheel's scorer. Loading a wheel database takes
    most of a second, so three are loaded, once: the base, one the trajectories are played on and one the wheel's
    ``get_expected_db`` builds a task's expected database on (from the task's gold actions), each put back to the
    base record by record after use (``back_to_base``); and the expected database is built and hashed once per task,
    not once per trajectory."""

    def __init__(self, scorer: Any, domain: str) -> None:
        self.scorer, self.domain = scorer, domain
        tool_class = scorer.AirlineAgentTools if domain == "airline" else scorer.RetailAgentTools
        self.base, self.tools, expected_tools = tool_class(), tool_class(), tool_class()
        for tools in (self.base, self.tools, expected_tools):
            tools.initialize()
        self._expected_hash: dict[str, str] = {}
        self._task_id = ""
        expected_db = scorer.get_expected_db
        setattr(scorer, tool_class.__name__, lambda instance: expected_tools)  # get_expected_db's fresh tools

        def expected_once(domain: str, actions: Any) -> Any:
            if self._task_id not in self._expected_hash:
                self._expected_hash[self._task_id] = expected_db(domain, actions).db.get_hash()
                back_to_base(expected_tools, self.base)
            digest = self._expected_hash[self._task_id]
            # all db_match reads of the expected tools: ``.db.get_hash()``
            return types.SimpleNamespace(db=types.SimpleNamespace(get_hash=lambda: digest))

        scorer.get_expected_db = expected_once

    async def verdict(self, raw: dict[str, Any], trajectory: Trajectory) -> bool:
        self._task_id = raw["id"]
        tools = self.tools
        for name, args in trajectory.calls:
            if name in NOT_DB_TOOLS:
                continue
            # inspect-ai refuses arguments off the schema (ValidationError) before the tool runs
            with contextlib.suppress(WheelToolError, ValidationError):
                getattr(tools, name)(**copy.deepcopy(args))
        said = [ChatMessageUser(content=trajectory.reply)]
        state = TaskState(metadata={"instance": "agreement", "task": raw}, messages=said)
        scores = [
            await self.scorer.db_match(domain=self.domain, testing_mock_predicted_db=tools)(state, None),
            await self.scorer.score_communicated_info()(state, None),
        ]
        back_to_base(tools, self.base)
        return bool(self.scorer.complete_if_all_complete(scores).value == CORRECT)


@cache
def raw_tasks(domain: str) -> list[dict[str, Any]]:
    path = source.package_root() / "tau2" / "data" / "domains" / domain / "tasks.json"
    return list(json.loads(path.read_text()))


@pytest.mark.slow
@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_squall_and_the_wheels_scorer_agree_on_gold_and_damaged_trajectories(domain: str) -> None:
    pack = load_world(f"tau2:{domain}:test")  # before the wheel's packages are entered: squall finds them unimported
    assert isinstance(pack, Tau2Pack)
    test_split = {t.id for t in pack.tasks()}
    raws = [raw for raw in raw_tasks(domain) if raw["id"] in test_split]
    assert len(raws) == len(test_split)
    played = [t for n, raw in enumerate(raws) for t in trajectories(domain, raw, n)]
    ours = [asyncio.run(squall_verdict(pack, t)) for t in played]
    by_id = {raw["id"]: raw for raw in raws}
    with wheel_scorer() as scorer:
        player = WheelPlayer(scorer, domain)
        theirs = [asyncio.run(player.verdict(by_id[t.task_id], t)) for t in played]
    verdicts = list(zip(played, ours, theirs, strict=True))
    disagreements = [f"task {t.task_id} ({t.damage}): squall {a}, wheel {b}" for t, a, b in verdicts if a != b]
    kinds = {t.damage for t in played}
    assert kinds == {"gold", "write dropped", "argument changed", "unasked write", "fact unsaid"}
    assert disagreements == [], "\n".join(disagreements)
    # the damage is real: the wheel fails most damaged trajectories, and every gold one passes
    assert all(b for t, _, b in verdicts if t.damage == "gold")
    assert sum(not b for t, _, b in verdicts if t.damage != "gold") > len(raws) // 2
