"""Dual control outside τ²: the ``account_unlock`` world gives its user tools (a phone), and the trace, the judges
and the viewer show who acted.

- The oracle asks for the user's acts by name; the scripted user does them on its phone (recorded as the user's),
  and every judge scores 1.0; the null agent never asks, the phone stays untouched, and it scores 0.0.
- The agent's judges never count the user's calls as the agent's; the state judge sees the user's side.
- An LLM user gets its tools as native tools of its own (role ``user``) request, and its calls run on the phone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from personas import LLMUser, UserSpec
from sim.config.run_config import RunConfig
from sim.core import (
    EpisodeResult,
    Event,
    Goal,
    GoldCall,
    ModelRequest,
    ModelResponse,
    Task,
    ToolCall,
    UserContext,
    UserGoldCall,
    UserIntent,
    UserView,
)
from sim.episode.user_tools import user_tools_of
from sim.report.episodes import project
from sim.run.runner import execute
from worlds.domains.account_unlock import AccountUnlockPack, AccountUnlockWorld, unlock_code
from worlds.domains.smart_home import SmartHomePack
from worlds.gold_check import GoldPlanError, check_gold_by_execution


async def run(tmp_path: Path, agent: str) -> tuple[list[EpisodeResult], dict[str, float | None]]:
    config = RunConfig.model_validate({"out": tmp_path, "run_id": agent, "world": "account_unlock", "agent": agent})
    store, summary = await execute(config)
    assert summary["failed_episodes"] == 0
    values: dict[str, list[float]] = {}
    for score in store.scores():
        if score.value is not None:
            values.setdefault(score.judge, []).append(score.value)
    return store.episodes(), {judge: sum(v) / len(v) for judge, v in values.items()}


async def test_the_oracle_asks_the_scripted_user_acts_and_both_are_recorded_apart(tmp_path: Path) -> None:
    episodes, scores = await run(tmp_path, "oracle")
    assert scores["core_api_accuracy"] == scores["state_match"] == scores["conversation_success"] == 1.0
    unlock = next(e for e in episodes if e.task_id == "unlock_alice")
    acts = [(ev.kind, ev.actor, ev.call.name) for ev in unlock.events if ev.call is not None]
    assert acts == [
        ("tool_call", "agent", "send_unlock_code"),
        ("tool_result", "agent", "send_unlock_code"),
        ("user_tool_call", "user", "read_messages"),
        ("user_tool_result", "user", "read_messages"),
        ("tool_call", "agent", "unlock_account"),
        ("tool_result", "agent", "unlock_account"),
    ]
    said = [ev.content or "" for ev in unlock.events if ev.kind == "user_message"]
    assert unlock_code("alice") in said[1]  # the user read the code off its phone and told the agent
    state = unlock.goal_states[0]
    assert state.after == state.gold_after and "phone.inbox" in state.after  # the state judge sees the phone
    shown = [ev for ev in project(unlock)["events"] if ev["k"].startswith("user_tool")]
    assert [ev["call"]["name"] for ev in shown] == ["read_messages", "read_messages"]  # the viewer's rows


async def test_the_null_agent_never_asks_so_the_user_never_acts(tmp_path: Path) -> None:
    episodes, scores = await run(tmp_path, "null")
    assert scores["core_api_accuracy"] == scores["state_match"] == 0.0
    assert not [ev for e in episodes for ev in e.events if ev.actor == "user" and ev.kind != "user_message"]


async def test_a_gold_with_user_acts_needs_a_world_that_gives_its_user_tools() -> None:
    assert await check_gold_by_execution(AccountUnlockPack()) == 3  # the agent's calls; the user's run too
    home = SmartHomePack()
    goal = home.tasks()[0].goals[0]
    task = home.tasks()[0].model_copy(
        update={"goals": [goal.model_copy(update={"user_gold": [UserGoldCall(name="read_messages")]})]}
    )
    with pytest.raises(GoldPlanError, match="gives its user no tools"):
        await check_gold_by_execution(home, [task])


class PhoneReadingModel:
    """The user simulator's model: first calls its phone's ``read_messages``, then says what it read."""

    def __init__(self) -> None:
        self.steps = 0
        self.requests: list[ModelRequest] = []

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        if len(self.requests) == 1:
            return ModelResponse(text="My account alice is locked, please unlock it.")
        if len(self.requests) == 2:
            return ModelResponse(tool_calls=(ToolCall(id="m1", name="read_messages", arguments={}),))
        shown = request.messages[-1].content
        code = unlock_code("alice")
        return ModelResponse(text=f"The text says {code}." if code in shown else "I see nothing.")


async def test_an_llm_user_calls_its_own_tools_natively_and_they_run_on_its_side() -> None:
    world = AccountUnlockWorld(0)
    await world.call(ToolCall(id="a", name="send_unlock_code", arguments={"username": "alice"}))
    events: list[Event] = []
    tools = user_tools_of(world, events.append, lambda: 0.0, lambda: (1, 0))
    assert tools is not None
    task = Task(
        id="t",
        world="account_unlock",
        goals=[Goal(user=UserIntent(explicit="My account alice is locked, please unlock it."), gold=[GoldCall(
            name="send_unlock_code", arguments={"username": "alice"})])],
    )  # fmt: skip
    model = PhoneReadingModel()
    user = LLMUser(UserSpec("llm"), "mock-model")
    await user.open(task, UserContext(seed=0, llm=model, tools=tools))
    reply = await user.reply(UserView(turn=0, agent_message="I texted you a code: please read it to me."))
    assert reply is not None and unlock_code("alice") in reply.text
    assert all(r.role == "user" for r in model.requests)
    assert "read_messages" in {t.name for t in model.requests[1].tools}  # a native tool of its own request
    assert [(ev.kind, ev.actor, ev.turn) for ev in events] == [("user_tool_call", "user", 1), ("user_tool_result",
        "user", 1)]  # fmt: skip
    assert model.requests[2].messages[-1].role == "tool"  # the answer went back as a native tool result


async def test_the_isolated_setup_replays_an_earlier_goals_user_acts(tmp_path: Path) -> None:
    unlock, two_factor = AccountUnlockPack().tasks()
    both = Task(id="both", world="account_unlock", goals=[*unlock.goals, *two_factor.goals])
    tasks = tmp_path / "both.jsonl"
    tasks.write_text(both.model_dump_json() + "\n")
    config = {"out": tmp_path, "run_id": "iso", "world": str(tasks), "agent": "oracle", "setup": "isolated"}
    store, summary = await execute(RunConfig.model_validate(config))
    assert summary["failed_episodes"] == 0 and summary["state_match"] == summary["conversation_success"] == 1.0
    (episode,) = store.episodes()
    replayed = [(ev.kind, ev.call.name) for ev in episode.events if ev.replayed and ev.call is not None]
    assert ("user_tool_call", "read_messages") in replayed  # goal 0's user act, replayed before goal 1 in its place
