"""τ²-bench's reward on an episode, from the trace: squall's own reading of τ²'s evaluator.

A task carries τ²'s evaluation criteria (``Task.evaluation``, tag ``tau2``); the reward is the product of the
components its reward basis names (τ²'s default, where a task names none: DB and COMMUNICATE):
- DB: the final database equals the one the gold actions leave (the world's whole task state against the gold's,
  ``EpisodeResult.goal_states``); 1.0 outright for a task with neither actions nor environment assertions, as τ²;
- ACTION: every gold action of the agent's is matched by one of the agent's calls: same name, and equal arguments
  over ``compare_args`` (None: the call's own argument names; empty: any call of the name);
- COMMUNICATE: each required fact appears in some reply of the agent (case folded, the reply's commas removed);
- ENV_ASSERTION: the task's assertions on the final state of both sides (the database, the user's device), as the
  world checked them when the episode ended (``EpisodeResult.end_checks``: judges never import a world's functions);
- ACTION matches the user's gold actions (telecom's ``requestor: user``) against the user's own tool calls;
- NL_ASSERTION: only with a judge model (``--judge-model``); a basis that names a component without its verdict gets
  no value unless another component already failed — never a silent pass.
A task a stressor left nothing to do (an outage or a missing function: its goal declines) is judged on DB alone,
against the database the gold leaves, i.e. untouched: τ²'s actions and facts to tell are unreachable there.
An episode that ended other than by the user or the agent (squall's turn limit: τ²'s step limit) scores 0.0, as τ²;
one that failed for a reason nobody under test caused (provider, harness) is unscoreable, and pass^k leaves it out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from judges.common.llm_ask import JudgeModel
from judges.common.trace_view import failed, score_for, unscoreable
from judges.names import JudgeName
from judges.tau2.nl_assertions import judge_assertions
from sim.core import EpisodeResult, Score
from sim.core.task_state import moved

TAG = "tau2"
DEFAULT_BASIS = ("DB", "COMMUNICATE")
COMPONENTS = ("DB", "ENV_ASSERTION", "ACTION", "COMMUNICATE", "NL_ASSERTION")
NOT_JUDGED = {
    "ENV_ASSERTION": "tau2:env_assertion_not_judged",
    "NL_ASSERTION": "tau2:nl_assertion_not_judged",
}
SHOWN = 8


def action_matches(action: Mapping[str, Any], name: str, arguments: Mapping[str, Any]) -> bool:
    """τ²'s comparison of a gold action with a call."""
    if action.get("name") != name:
        return False
    keys = action.get("compare_args")
    compared = list(arguments) if keys is None else list(keys)
    if not compared:
        return True
    expected = action.get("arguments") or {}
    return {k: v for k, v in arguments.items() if k in compared} == {k: v for k, v in expected.items() if k in compared}


def missing_actions(
    actions: Sequence[Mapping[str, Any]],
    calls: Sequence[tuple[str, Mapping[str, Any]]],
    user_calls: Sequence[tuple[str, Mapping[str, Any]]] = (),
) -> list[str]:
    """The ids (else names) of the gold actions no call matches: the agent's against the agent's calls, the user's
    (dual control: ``requestor: user``) against the user's own."""
    return [
        str(a.get("action_id") or a.get("name"))
        for a in actions
        if not any(
            action_matches(a, name, args)
            for name, args in (calls if a.get("requestor", "assistant") == "assistant" else user_calls)
        )
    ]


def env_component(result: EpisodeResult, criteria: Mapping[str, Any]) -> tuple[float | None, list[str]]:
    """(1.0/0.0, the failed assertions) from the world's own checks of its final state (``EpisodeResult.end_checks``),
    or (None, []) when the task has assertions the world did not check."""
    assertions = _list(criteria, "env_assertions")
    if not assertions:
        return 1.0, []
    checks = result.end_checks
    if len(checks) != len(assertions):
        return None, []
    failed = [f"{c.side}:{c.name}({c.arguments}): {c.detail}" for c in checks if not c.passed]
    return (0.0 if failed else 1.0), failed


def missing_info(info: Sequence[str], replies: Sequence[str]) -> list[str]:
    """The required facts no reply of the agent states."""
    said = [r.lower().replace(",", "") for r in replies]
    return [fact for fact in info if not any(fact.lower() in text for text in said)]


def db_component(result: EpisodeResult, criteria: Mapping[str, Any]) -> tuple[float | None, list[str]]:
    """(1.0/0.0, the differing paths), or (None, []) when the gold's database is unknown."""
    if not criteria.get("has_actions") and not criteria.get("env_assertions"):
        return 1.0, []
    states = result.goal_states
    if not states or states[-1].gold_after is None:
        return None, []
    last = states[-1]
    differ = sorted(moved(last.after, last.gold_after or {}))
    return (0.0 if differ else 1.0), differ


class Tau2Reward:
    """τ²'s reward (1.0/0.0) with its components in the details; None for a task that is not τ²'s. With a judge
    model, the task's natural-language assertions are judged too (``judges.tau2.nl_assertions``): in the reward
    where its basis names NL_ASSERTION, as τ², and reported beside it otherwise."""

    name = JudgeName.TAU2_REWARD

    def __init__(self, judge_model: JudgeModel | None = None) -> None:
        self.judge_model = judge_model

    async def score(self, result: EpisodeResult) -> Score:
        criteria = result.task.evaluation
        if TAG not in result.task.tags or criteria is None:
            return score_for(result, self.name, value=None)
        if failed(result):
            return unscoreable(result, self.name)
        basis = [str(b) for b in (criteria.get("reward_basis") or DEFAULT_BASIS)]  # type: ignore[union-attr]
        events = [ev for ev in result.events if not ev.replayed]
        calls = [(ev.call.name, ev.call.arguments) for ev in events if ev.kind == "tool_call" and ev.call is not None]
        user_calls = [(ev.call.name, ev.call.arguments) for ev in events if ev.kind == "user_tool_call" and ev.call]
        replies = [ev.content or "" for ev in events if ev.kind == "agent_message"]
        db, paths = db_component(result, criteria)
        if declined_by_stressor(result):  # τ²'s actions and facts are unreachable: the database must be left alone
            basis, criteria = ["DB"], {**criteria, "actions": [], "communicate_info": []}
        lacking_actions = missing_actions(_list(criteria, "actions"), calls, user_calls)
        env, failed_assertions = env_component(result, criteria)
        lacking_info = missing_info([str(i) for i in _list(criteria, "communicate_info")], replies)
        components: dict[str, float | None] = {
            "DB": db,
            "ACTION": 0.0 if lacking_actions else 1.0,
            "COMMUNICATE": 0.0 if lacking_info else 1.0,
            "ENV_ASSERTION": env,
        }
        if "NL_ASSERTION" in basis:
            components["NL_ASSERTION"] = None
        assertions = [str(a) for a in _list(criteria, "nl_assertions")]
        verdicts = (
            await judge_assertions(self.judge_model, events, assertions) if self.judge_model and assertions else []
        )
        if verdicts:
            components["NL_ASSERTION"] = 1.0 if all(v.met for v in verdicts) else 0.0
        errors: list[str] = []
        stopped = result.termination == "completed"
        in_basis = {k: components.get(k) for k in COMPONENTS if k in basis}
        known = [v for v in in_basis.values() if v is not None]
        if not stopped:
            value: float | None = 0.0
            errors.append(f"tau2:ended_by_{result.termination}")
        elif any(v == 0.0 for v in known):
            value = 0.0
        elif len(known) < len(in_basis):
            value = None
        else:
            value = 1.0
        errors += [f"tau2:{k.lower()}_failed" for k, v in in_basis.items() if v == 0.0]
        errors += [NOT_JUDGED.get(k, "tau2:gold_state_unavailable") for k, v in in_basis.items() if v is None]
        details: dict[str, Any] = {
            "domain": next((t.removeprefix("tau2:") for t in result.task.tags if t.count(":") == 1 and
                            t.startswith("tau2:")), ""),
            "reward_basis": basis,
            "components": in_basis,
            "checks": components,
        }  # fmt: skip
        if verdicts:
            details["nl_assertions"] = [{"assertion": v.assertion, "met": v.met, "reason": v.reason} for v in verdicts]
        if lacking_actions:
            details["missing_actions"] = lacking_actions[:SHOWN]
        if lacking_info:
            details["missing_info"] = lacking_info[:SHOWN]
        if failed_assertions:
            details["failed_assertions"] = failed_assertions[:SHOWN]
        if paths:
            details.update(db_paths=paths[:SHOWN], db_differing_paths=len(paths))
        return score_for(result, self.name, value=value, per_goal=[value], errors=errors, details=details)


def declined_by_stressor(result: EpisodeResult) -> bool:
    """A stressor (an outage or a missing function) left the task nothing to do: its goal declines with the
    stressor's reference reply. τ²'s own refusal tasks decline with none, and keep their whole reward basis."""
    return any(g.outcome == "decline" and g.reference_response is not None for g in result.task.goals)


def _list(criteria: Mapping[str, Any], key: str) -> list[Any]:
    value = criteria.get(key)
    return list(value) if isinstance(value, list) else []
