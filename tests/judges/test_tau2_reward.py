"""τ²'s reward judge on hand-built traces: each component (DB, ACTION, COMMUNICATE), the reward basis, components
that need a judge model (never a silent pass), terminations, and the summary's pass^k."""

from __future__ import annotations

from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from judges.common.llm_ask import JudgeModel
from judges.common.reduction import EpisodeFacts, RunFacts
from judges.common.summary_view import heading
from judges.tau2.tau2_reward import Tau2Reward, action_matches
from judges.tau2.tau2_reward_summary import Tau2RewardSummary, component_rows
from sim.core import EpisodeResult, Event, Goal, GoalState, Task, ToolCall, UserIntent, WorldCheck
from sim.llm.gateway import Gateway
from sim.llm.transports.pydantic_ai import PydanticAITransport

CANCEL = {"action_id": "a0", "name": "cancel_reservation", "arguments": {"reservation_id": "EHGLP3"}}


def task(basis: list[str] | None = None, actions: list[dict[str, Any]] | None = None, info: list[str] = ()) -> Task:  # type: ignore[assignment]
    evaluation: dict[str, Any] = {
        "actions": [CANCEL] if actions is None else actions,
        "communicate_info": list(info),
        "nl_assertions": ["The agent is polite."],
        "env_assertions": [],
        "reward_basis": basis or ["DB", "COMMUNICATE"],
        "has_actions": True,
    }
    return Task(
        id="7",
        world="tau2:airline",
        tags=["tau2", "tau2:airline"],
        evaluation=evaluation,
        goals=[Goal(user=UserIntent(explicit="cancel it"), gold=[])],
    )


def episode(
    the_task: Task,
    calls: list[tuple[str, Any]] = (),  # type: ignore[assignment]
    said: str = "Done.",
    after: dict[str, Any] | None = None,
    termination: Any = "completed",
) -> EpisodeResult:
    events = [Event(kind="user_message", turn=0, goal=0, content="cancel it")]
    events += [
        Event(kind="tool_call", turn=0, goal=0, call=ToolCall(id=str(i), name=n, arguments=a))
        for i, (n, a) in enumerate(calls)
    ]
    events.append(Event(kind="agent_message", turn=0, goal=0, content=said))
    gold = {"reservations.EHGLP3.status": "cancelled"}
    state = GoalState(goal=0, before={}, after=gold if after is None else after, gold_before={}, gold_after=gold)
    return EpisodeResult(
        episode_id="7#0", task_id="7", trial=0, seed=0, world="tau2:airline", agent="a", user="scripted",
        task=the_task, tools=[], events=events, termination=termination, turns_played=1, goals_played=1,
        goal_states=[state],
    )  # fmt: skip


async def test_the_gold_trajectory_scores_one_with_its_components() -> None:
    score = await Tau2Reward().score(
        episode(task(info=["1000"]), [("cancel_reservation", CANCEL["arguments"])], "Refund: 1,000 dollars")
    )
    assert score.value == 1.0 and score.errors == []
    assert score.details["components"] == {"DB": 1.0, "COMMUNICATE": 1.0}
    assert score.details["checks"]["ACTION"] == 1.0 and score.details["domain"] == "airline"


async def test_each_component_in_the_basis_fails_the_reward() -> None:
    judge = Tau2Reward()
    wrong_db = await judge.score(episode(task(), after={}))
    assert wrong_db.value == 0.0 and wrong_db.errors == ["tau2:db_failed"]
    assert wrong_db.details["db_paths"] == ["reservations.EHGLP3.status"]
    unsaid = await judge.score(episode(task(info=["1000"]), said="Cancelled."))
    assert unsaid.value == 0.0 and unsaid.details["missing_info"] == ["1000"]
    no_action = await judge.score(episode(task(basis=["ACTION"])))
    assert no_action.value == 0.0 and no_action.details["missing_actions"] == ["a0"]
    # ACTION outside the basis is reported, not multiplied in (τ²'s default basis is DB and COMMUNICATE)
    outside = await judge.score(episode(task()))
    assert outside.value == 1.0 and outside.details["checks"]["ACTION"] == 0.0


async def test_a_component_that_needs_a_judge_model_is_never_silently_passed() -> None:
    judge = Tau2Reward()
    unknown = await judge.score(episode(task(basis=["DB", "NL_ASSERTION"])))
    assert unknown.value is None and unknown.errors == ["tau2:nl_assertion_not_judged"]
    assert unknown.details["components"] == {"DB": 1.0, "NL_ASSERTION": None}
    already_failed = await judge.score(episode(task(basis=["DB", "NL_ASSERTION"]), after={}))
    assert already_failed.value == 0.0  # a product with a zero factor is zero, whatever the judge model would say


async def test_terminations_and_tasks_that_are_not_tau2s() -> None:
    judge = Tau2Reward()
    limited = await judge.score(episode(task(), termination="turn_limit"))
    assert limited.value == 0.0 and "tau2:ended_by_turn_limit" in limited.errors
    crashed = await judge.score(episode(task(), termination="provider_error"))
    assert crashed.value is None and crashed.errors == ["episode:provider_error"]
    other = task().model_copy(update={"tags": ["multi-turn"]})
    assert (await judge.score(episode(other))).value is None
    nothing = task(actions=[]).model_copy(update={"evaluation": {**task().evaluation, "has_actions": False}})  # type: ignore[dict-item]
    assert (await judge.score(episode(nothing, after={}))).value == 1.0  # no actions, no assertions: DB passes


def test_actions_compare_as_tau2_compares_them() -> None:
    args = {"user_id": "u1", "title": "T"}
    assert action_matches({"name": "create", "arguments": args}, "create", dict(args))
    assert not action_matches({"name": "create", "arguments": args}, "create", {**args, "extra": 1})
    assert not action_matches({"name": "create", "arguments": args}, "update", dict(args))
    assert action_matches(
        {"name": "create", "arguments": args, "compare_args": ["user_id"]}, "create", {"user_id": "u1"}
    )
    assert action_matches(
        {"name": "transfer", "arguments": {"summary": "x"}, "compare_args": []}, "transfer", {"summary": "y"}
    )


async def test_the_summary_reports_pass_hat_k_per_domain_and_the_components() -> None:
    judge, summary = Tau2Reward(), Tau2RewardSummary()
    outcomes: dict[tuple[str, int], dict[str, Any] | None] = {
        ("1", 0): {},
        ("1", 1): None,
        ("2", 0): None,
        ("2", 1): None,
    }  # after-state: {} fails DB
    for (task_id, trial), after in outcomes.items():
        result = episode(task(), after=after).model_copy(update={"task_id": task_id, "trial": trial})
        verdict = summary.verdict(await judge.score(result))
        assert verdict is not None
        summary.add(verdict, EpisodeFacts(task_id, trial, False, 0))
    out = summary.result(RunFacts(trials=2, scored_trials=(0, 1)))
    assert out["tau2_reward"] == 0.75 and out["tau2_pass_hat_k"] == {"1": 0.75, "2": 0.5}
    assert out["tau2_by_domain"]["airline"]["tasks"] == 2
    assert out["tau2_components"]["DB"] == {"pass_rate": 0.75, "judged": 4, "not_judged": 0}
    rows = Tau2RewardSummary.rows(out)
    assert rows[0][:2] == ["τ² reward (pass^1, τ²'s)", "75.0%"] and ["τ² pass^2", "50.0%", "", "tasks"] in rows
    (per_task,) = [s for s in Tau2RewardSummary.sections(out) if s.key == "tau2_tasks"]
    assert per_task.columns == ("task", "trials", "reward", "COMMUNICATE", "DB")
    assert per_task.rows == (("1", "2", "50.0%", "100.0%", "50.0%"), ("2", "2", "100.0%", "100.0%", "100.0%"))
    assert heading(per_task.title) == "τ² reward per task" and heading("per task") == "Per task"  # not "Τ²"


async def test_the_episode_page_reads_each_component_and_what_failed_it() -> None:
    score = await Tau2Reward().score(episode(task(), after={}))
    rows = component_rows(score.details)
    assert ("DB", "FAIL") in [r[:2] for r in rows] and all(r[1] == "pass" for r in rows if r[0] != "DB")
    (db,) = [r for r in rows if r[0] == "DB"]
    assert db[2] and all(p in db[2] for p in score.details["db_paths"])
    assert component_rows({"components": {"NL_ASSERTION": None}}) == [("NL_ASSERTION", "not judged", "")]
    assert component_rows({}) == []


def nl_judge(*answers: str) -> tuple[JudgeModel, list[str]]:
    """A FunctionModel judge answering ``answers`` in turn (the last one again once they run out)."""
    asked: list[str] = []

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        asked.append(str(messages[-1]))
        return ModelResponse(parts=[TextPart(answers[min(len(asked), len(answers)) - 1])])

    gateway = Gateway()
    gateway.register("judge", PydanticAITransport(FunctionModel(reply)))
    return JudgeModel(gateway.complete, "judge"), asked


MET = '{"met": [true], "reasons": ["it said please"]}'
NOT_MET = '{"met": [false], "reasons": ["it was curt"]}'


async def test_a_judge_model_judges_the_nl_assertions_in_the_reward_where_the_basis_names_them() -> None:
    model, asked = nl_judge(MET)
    score = await Tau2Reward(model).score(episode(task(basis=["DB", "NL_ASSERTION"])))
    assert score.value == 1.0 and score.details["components"] == {"DB": 1.0, "NL_ASSERTION": 1.0}
    assert score.details["nl_assertions"] == [{"assertion": "The agent is polite.", "met": True,
                                               "reason": "it said please"}]  # fmt: skip
    assert "1. The agent is polite." in asked[0] and "agent: Done." in asked[0]  # the conversation and the assertion
    failed, _ = nl_judge("not JSON", NOT_MET)  # a malformed verdict is asked again
    score = await Tau2Reward(failed).score(episode(task(basis=["DB", "NL_ASSERTION"])))
    assert score.value == 0.0 and "tau2:nl_assertion_failed" in score.errors


async def test_nl_assertions_outside_the_basis_are_reported_beside_the_reward_not_in_it() -> None:
    model, _ = nl_judge(NOT_MET)
    score = await Tau2Reward(model).score(episode(task(basis=["DB"])))
    assert score.value == 1.0 and "NL_ASSERTION" not in score.details["components"]
    assert score.details["checks"]["NL_ASSERTION"] == 0.0 and score.details["nl_assertions"][0]["met"] is False


async def test_a_task_a_stressor_left_nothing_to_do_is_judged_on_its_database_alone() -> None:
    """An outage or missing function made the goal a decline: τ²'s actions and facts are unreachable, so only the
    database counts (left untouched: the rewritten gold's). τ²'s own refusal tasks (no reference reply) keep theirs."""
    base = task(basis=["DB", "ACTION", "COMMUNICATE"], info=["1000"])
    goal = base.goals[0].model_copy(update={"outcome": "decline", "reference_response": "It is down.", "gold": []})
    stressed = base.model_copy(update={"goals": [goal]})
    untouched = {"reservations.EHGLP3.status": "active"}

    def declined(after: dict[str, Any]) -> EpisodeResult:
        result = episode(stressed, said="Sorry, that service is down.", after=after)
        state = result.goal_states[0].model_copy(update={"gold_after": untouched})
        return result.model_copy(update={"goal_states": [state]})

    right = await Tau2Reward().score(declined(untouched))
    assert right.value == 1.0 and right.details["components"] == {"DB": 1.0}
    wrote = await Tau2Reward().score(declined({"reservations.EHGLP3.status": "cancelled"}))
    assert wrote.value == 0.0 and wrote.errors == ["tau2:db_failed"]
    refusal = base.model_copy(update={"goals": [goal.model_copy(update={"reference_response": None})]})
    kept = await Tau2Reward().score(episode(refusal, said="Sorry."))
    assert set(kept.details["components"]) == {"DB", "ACTION", "COMMUNICATE"}


async def test_env_assertions_are_read_from_the_worlds_checks_and_user_actions_from_the_users_calls() -> None:
    toggle = {"action_id": "u0", "requestor": "user", "name": "toggle_roaming", "arguments": {}}
    assertion = {"env_type": "user", "func_name": "assert_mobile_data_status", "arguments": {"expected_status": True},
                 "assert_value": True}  # fmt: skip
    the_task = task(basis=["ENV_ASSERTION", "ACTION"], actions=[toggle])
    the_task = the_task.model_copy(
        update={"evaluation": {**(the_task.evaluation or {}), "env_assertions": [assertion]}}
    )
    judge = Tau2Reward()
    unchecked = await judge.score(episode(the_task, calls=[("toggle_roaming", {})]))
    # The agent made the user's call itself (not a user act), and no world checked the assertion: never a pass.
    assert unchecked.value == 0.0 and "tau2:action_failed" in unchecked.errors
    assert unchecked.details["components"] == {"ENV_ASSERTION": None, "ACTION": 0.0}
    user_call = Event(kind="user_tool_call", turn=0, goal=0, call=ToolCall(id="u", name="toggle_roaming"))
    ok = WorldCheck(name="assert_mobile_data_status", side="user", passed=True)
    done = episode(the_task)
    done = done.model_copy(update={"events": [*done.events, user_call], "end_checks": [ok]})
    assert (await judge.score(done)).value == 1.0
    broken = done.model_copy(update={"end_checks": [ok.model_copy(update={"passed": False, "detail": "no data"})]})
    verdict = await judge.score(broken)
    assert verdict.value == 0.0 and verdict.details["failed_assertions"] == [
        "user:assert_mobile_data_status({}): no data"
    ]
