"""The BFCL multi-turn judge on hand-built traces: each rule of BFCL's verdict (empty turn, state, response, the
20-step rule, unplayed turns), the state check over compacted goal states, and its summary."""

from __future__ import annotations

import random
from typing import Any

from judges.bfcl.bfcl_multi_turn import BfclMultiTurn, differing_paths
from judges.bfcl.bfcl_multi_turn_summary import BfclMultiTurnSummary
from judges.common.reduction import EpisodeFacts, RunFacts
from sim.core import EpisodeResult, Event, Goal, GoalState, GoldCall, Score, Task, ToolCall, ToolResult, UserIntent
from sim.core.task_state import changed
from sim.episode.state_track import _compact

Step = list[tuple[str, str]]  # (function, the result the world gave)


def task(golds: list[list[tuple[str, str]]], category: str = "multi_turn_base", bfcl: bool = True) -> Task:
    tags = ["bfcl", f"bfcl:{category}"] if bfcl else ["multi-turn"]
    goals = [
        Goal(user=UserIntent(explicit=f"turn {i}"), gold=[GoldCall(name=n, result=r) for n, r in gold])
        for i, gold in enumerate(golds)
    ]
    return Task(id=f"{category}_0", world=f"bfcl:{category}", tags=tags, goals=goals)


def episode(
    the_task: Task,
    turns: list[list[Step]],
    states: list[tuple[dict[str, Any], dict[str, Any]]] | None = None,
    unknown: dict[int, int] | None = None,
) -> EpisodeResult:
    """An episode whose goal g is turn g, with the agent's steps per turn; ``states``: (agent's, gold's) whole world
    after each goal (default: alike); ``unknown``: goal -> steps that only named an unknown function."""
    events: list[Event] = []
    for g, steps in enumerate(turns):
        events.append(Event(kind="user_message", turn=g, goal=g, content=f"turn {g}"))
        for s, step in enumerate(steps, start=1):
            for i, (name, content) in enumerate(step):
                call = ToolCall(id=f"c{g}_{s}_{i}", name=name)
                events.append(Event(kind="tool_call", turn=g, goal=g, step=s, call=call))
                result = ToolResult(call_id=call.id, status="success", content=content)
                events.append(Event(kind="tool_result", turn=g, goal=g, step=s, call=call, result=result))
        for s in range((unknown or {}).get(g, 0)):
            events.append(Event(kind="error", turn=g, goal=g, step=100 + s, code="agent:unknown_tool", fault="agent"))
        events.append(Event(kind="agent_message", turn=g, goal=g, content="done"))
    whole = states or [({}, {}) for _ in turns]
    goal_states = [
        GoalState(
            goal=g,
            before=whole[g - 1][0] if g else {},
            after=whole[g][0],
            gold_before=whole[g - 1][1] if g else {},
            gold_after=whole[g][1],
        )
        for g in range(len(turns))
    ]
    return EpisodeResult(
        episode_id=f"{the_task.id}#0", task_id=the_task.id, trial=0, seed=0, world=the_task.world, agent="a",
        user="scripted", task=the_task, tools=[], events=events, turns_played=len(turns), goals_played=len(turns),
        goal_states=goal_states,
    )  # fmt: skip


async def judge(result: EpisodeResult) -> Score:
    return await BfclMultiTurn().score(result)


TWO = [[("cd", "{}"), ("ls", "a b")], [("cat", "hello")]]


async def test_a_task_that_is_no_bfcl_multi_turn_entry_is_not_scored() -> None:
    assert (await judge(episode(task(TWO, bfcl=False), [[]]))).value is None
    assert (await judge(episode(task(TWO, category="simple_python"), [[]]))).value is None


async def test_the_gold_passes_and_each_turn_is_credited() -> None:
    score = await judge(episode(task(TWO), [[[("cd", "{}")], [("ls", "a b")]], [[("cat", "hello")]]]))
    assert score.value == 1.0 and score.per_goal == [1.0, 1.0] and not score.errors
    assert score.details["category"] == "multi_turn_base" and score.details["call_steps"] == [2, 1]


async def test_a_turn_without_a_call_fails_even_when_nothing_is_missing() -> None:
    the_task = task([[("ls", "x")], [("cd", "{}")]])
    score = await judge(episode(the_task, [[[("ls", "x"), ("cd", "{}")]], []]))  # turn 1's result came early
    assert score.value == 0.0 and score.errors == ["bfcl:empty_turn"] and score.details["first_failed_goal"] == 1
    assert score.per_goal == [1.0, 0.0] and score.details["response_checks"] == [True, True]
    # A call to a function it was not offered is still a call (BFCL runs it, and it errs).
    assert (await judge(episode(the_task, [[[("ls", "x"), ("cd", "{}")]], []], unknown={1: 1}))).value == 1.0


async def test_results_are_a_multiset_over_every_turn_so_far() -> None:
    the_task = task([[("ls", "x"), ("ls", "x")], [("cat", "y")]])
    once = await judge(episode(the_task, [[[("ls", "x")]], [[("cat", "y")]]]))
    assert once.errors == ["bfcl:response_mismatch"] and once.details["missing_results"] == ["x"]
    assert once.per_goal == [0.0, 1.0] and once.details["first_failed_goal"] == 0
    twice_early = await judge(episode(the_task, [[[("ls", "x"), ("ls", "x"), ("cat", "y")]], [[("pwd", "/")]]]))
    assert twice_early.value == 1.0  # turn 1's result came in turn 0: BFCL counts every result so far


async def test_the_world_result_counts_where_a_stressor_changed_what_the_agent_saw() -> None:
    result = episode(task([[("ls", "x")]]), [[[("ls", "shown")]]])
    ev = next(e for e in result.events if e.kind == "tool_result")
    raw = ToolResult(call_id=ev.call.id if ev.call else "", status="success", content="x")
    result.events[result.events.index(ev)] = ev.model_copy(update={"raw_result": raw})
    assert (await judge(result)).value == 1.0


async def test_a_state_mismatch_names_the_paths_and_comes_before_the_results() -> None:
    states = [({"FS.root.a": 1}, {"FS.root.a": 2}), ({"FS.root.a": 1}, {"FS.root.a": 2})]
    score = await judge(episode(task(TWO), [[[("ls", "nope")]], [[("cat", "hello")]]], states))
    assert score.errors == ["bfcl:state_mismatch"] and score.details["paths"] == ["FS.root.a"]
    assert score.details["state_checks"] == [False, False] and score.details["response_checks"] == [False, True]


async def test_an_empty_gold_turn_is_not_checked_but_its_calls_count_later() -> None:
    the_task = task([[("ls", "x")], [], [("cat", "y")]])
    states = [({}, {}), ({"FS.b": 1}, {}), ({"FS.b": 1}, {})]  # a write in the turn it should have declined
    score = await judge(episode(the_task, [[[("ls", "x")]], [[("rm", "ok")]], [[("cat", "y")]]], states))
    assert score.per_goal == [1.0, None, 0.0] and score.errors == ["bfcl:state_mismatch"]
    assert score.details["first_failed_goal"] == 2


def compacted(whole: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[GoalState]:
    """Goal states as ``sim.episode.state_track`` stores them: only the paths moved in a goal, the last kept whole."""
    states = []
    for g, (agent, gold) in enumerate(whole):
        before, gold_before = whole[g - 1] if g else ({}, {})
        state = GoalState(goal=g, before=before, after=agent, gold_before=gold_before, gold_after=gold)
        states.append(_compact(state, whole=g == len(whole) - 1))
    return states


def test_every_difference_of_whole_worlds_shows_through_compacted_states() -> None:
    """A path that differs at a goal's end moved in that goal or differed already when it began: carried from goal
    to goal, the differences read from compacted states are those of the whole worlds, after every goal."""
    rng = random.Random(7)
    paths = [f"C.p{i}" for i in range(6)]
    for _ in range(500):
        whole: list[tuple[dict[str, Any], dict[str, Any]]] = []
        agent: dict[str, Any] = {}
        gold: dict[str, Any] = {}
        for _goal in range(rng.randint(1, 6)):
            for side in (agent, gold):  # each side moves a few paths, often to the same values
                for p in rng.sample(paths, rng.randint(0, 3)):
                    side[p] = rng.randint(0, 2)
            whole.append(({p: v for p, v in agent.items() if v}, {p: v for p, v in gold.items() if v}))
        expected = {g: sorted(changed(a, b)) for g, (a, b) in enumerate(whole)}
        assert differing_paths(compacted(whole), isolated=False) == expected
    # Without carrying, a difference left by a goal nobody checks can vanish from a later goal's compacted view.
    whole = [({"C.p0": 1}, {}), ({"C.p0": 1, "C.p1": 1}, {"C.p1": 1}), ({"C.p0": 1, "C.p1": 1}, {"C.p1": 1})]
    assert "C.p0" not in compacted(whole)[1].after and differing_paths(compacted(whole), False)[1] == ["C.p0"]


async def test_more_than_twenty_steps_in_a_turn_fails_the_entry_as_bfcls_loop_does() -> None:
    the_task = task([[("ls", "x")], [("cat", "y")]])
    many = [[("pwd", "/")]] * 20
    assert (await judge(episode(the_task, [[*many, [("ls", "x")]], [[("cat", "y")]]]))).errors == ["bfcl:step_limit"]
    assert (await judge(episode(the_task, [[*many[1:], [("ls", "x")]], [[("cat", "y")]]]))).value == 1.0
    # The last turn: BFCL's loop quits after the 21st step but keeps the turn, so 21 steps are checked as usual.
    assert (await judge(episode(the_task, [[[("ls", "x")]], [*many, [("cat", "y")]]]))).value == 1.0
    over = await judge(episode(the_task, [[[("ls", "x")]], [*many, [("pwd", "/")], [("cat", "y")]]]))
    assert over.errors == ["bfcl:step_limit"] and over.details["first_failed_goal"] == 1


async def test_a_conversation_that_stopped_early_fails_whole() -> None:
    result = episode(task(TWO), [[[("cd", "{}"), ("ls", "a b")]]])
    result.task = task([*[[("cd", "{}"), ("ls", "a b")]], [("cat", "hello")], [("pwd", "/")]])
    score = await judge(result)
    assert score.value == 0.0 and score.errors == ["bfcl:unplayed_turns"] and score.details["unplayed"] == [1, 2]
    assert score.per_goal == [1.0, None, None]


async def test_a_failed_episode_or_a_missing_gold_state_is_not_scored() -> None:
    result = episode(task(TWO), [[[("cd", "{}"), ("ls", "a b")]], [[("cat", "hello")]]])
    result.termination = "timeout"
    assert (await judge(result)).value is None
    result.termination = "completed"
    result.goal_states[1] = result.goal_states[1].model_copy(update={"gold_after": None})
    assert (await judge(result)).errors == ["bfcl:gold_state_unavailable"]


async def test_the_summary_gives_bfcls_accuracy_per_category_and_the_checks_per_turn() -> None:
    summary = BfclMultiTurnSummary()
    for i, (category, turns) in enumerate(
        [("multi_turn_base", [[[("cd", "{}"), ("ls", "a b")]], [[("cat", "hello")]]]),
         ("multi_turn_base", [[[("cd", "{}")]], [[("cat", "hello")]]]),
         ("multi_turn_miss_func", [[[("cd", "{}"), ("ls", "a b")]], [[("cat", "hello")]]])]
    ):  # fmt: skip
        score = await judge(episode(task(TWO, category), turns))
        verdict = summary.verdict(score.model_copy(update={"task_id": f"t{i}"}))
        assert verdict is not None
        summary.add(verdict, EpisodeFacts(f"t{i}", 0, False, 0))
    out = summary.result(RunFacts(1, (0,)))
    assert out["bfcl_multi_turn_accuracy"] == round(2 / 3, 4) and out["bfcl_multi_turn_episodes"] == 3
    assert out["bfcl_multi_turn_by_category"]["multi_turn_miss_func"]["accuracy"] == 1.0
    assert out["bfcl_multi_turn_state_check"] == 1.0 and out["bfcl_multi_turn_response_check"] == round(5 / 6, 4)
    assert out["bfcl_multi_turn_failures"] == {"response_mismatch": 1}
    rows = BfclMultiTurnSummary.rows(out)
    assert rows[0][0] == "BFCL multi-turn accuracy (BFCL's)"
    assert "BFCL's own number" in BfclMultiTurnSummary.notes(out)[0]
    assert BfclMultiTurnSummary.sections(out)[0].rows[0][0] == "multi_turn_base"
    assert BfclMultiTurnSummary().result(RunFacts(1, ())) == {}
