"""A judge's Score without pydantic's validation where the fields are already what validation would give back.

A run builds a Score per judge per episode (13 an episode), and validating one (its ``mode="before"`` validator, a
call into Python, included) costs ~6 us: more than some judges' verdicts. ``build_score`` sets the fields directly when
each already has the exact type validation keeps unchanged (``str``, ``int``, ``float`` or None, lists of them, a
``details`` dict with ``str`` keys, whose values validation passes through as they are) and no error code opens with
``turn`` (``Score._goal_codes`` may rename those); anything else goes through ``Score(**fields)``. Either way the
Score is the same: equal, the same JSON, the same set fields, containers of its own (validation copies them; so does
this). ``tests/judges/test_score_build.py`` holds the two ways to each other."""

from __future__ import annotations

from typing import Any

from sim.core import Score
from sim.core.trusted import trusted

_KNOWN = frozenset(Score.model_fields)


def build_score(fields: dict[str, Any]) -> Score:
    """``Score(**fields)``: the same Score, unvalidated where validation would change nothing."""
    values = _as_valid(fields)
    if values is None:
        return Score(**fields)
    return trusted(Score, values, fields)


def _as_valid(fields: dict[str, Any]) -> dict[str, Any] | None:
    """The Score's field values where ``fields`` need no conversion; None where they might (or are wrong).

    Plain loops, no generators: this runs 13 times an episode, and must stay well under the validation's cost."""
    if not _KNOWN.issuperset(fields):
        return None
    try:
        episode_id, task_id, trial, judge, value = (
            fields["episode_id"],
            fields["task_id"],
            fields["trial"],
            fields["judge"],
            fields["value"],
        )
    except KeyError:
        return None  # a required field missing: validation says so
    judge_config = fields.get("judge_config", "")
    if not (type(episode_id) is type(task_id) is type(judge) is type(judge_config) is str and type(trial) is int):
        return None
    if value is not None and type(value) is not float:
        return None  # an int or a bool: validation makes it a float
    per_goal = fields.get("per_goal", [])
    if type(per_goal) is not list:
        return None
    for v in per_goal:
        if v is not None and type(v) is not float:
            return None
    errors = fields.get("errors", [])
    if type(errors) is not list:
        return None
    for e in errors:
        if type(e) is not str or e[:4] == "turn":
            return None
    details = fields.get("details", {})
    if type(details) is not dict:
        return None
    for k in details:
        if type(k) is not str:
            return None
    return {
        "episode_id": episode_id,
        "task_id": task_id,
        "trial": trial,
        "judge": judge,
        "value": value,
        "per_goal": list(per_goal),
        "errors": list(errors),
        "details": dict(details),
        "judge_config": judge_config,
    }
