"""``judges.common.score_build.build_score`` gives the Score ``Score(**fields)`` gives, validated or not."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from judges.common.score_build import build_score
from sim.core import Score

BASE: dict[str, Any] = {"episode_id": "t1#0", "task_id": "t1", "trial": 0, "judge": "call_f1", "value": 0.5}

CASES: list[dict[str, Any]] = [
    BASE,
    {**BASE, "value": None},
    {**BASE, "per_goal": [1.0, None, 0.0], "errors": ["goal0:core:missing:x"], "judge_config": "abc"},
    {**BASE, "details": {"counts": {"intent": [1, 2, 3]}, "stages": [None, "search"], "n": 3}},
    # Validation converts or renames these: the fallback's way.
    {**BASE, "value": 1},
    {**BASE, "value": True},
    {**BASE, "per_goal": [1, None, False]},
    {**BASE, "errors": ["turn0:core:missing:x", "goal1:y"]},
    {**BASE, "trial": True},
    {**BASE, "per_goal": (1.0,)},
]


@pytest.mark.parametrize("fields", CASES)
def test_the_score_is_the_validated_one(fields: dict[str, Any]) -> None:
    built, validated = build_score(dict(fields)), Score(**fields)
    assert built == validated
    assert built.model_dump_json() == validated.model_dump_json()
    assert built.model_fields_set == validated.model_fields_set
    assert repr(built) == repr(validated)


def test_its_containers_are_its_own() -> None:
    per_goal, errors, details = [1.0], ["goal0:x"], {"a": [1]}
    built = build_score({**BASE, "per_goal": per_goal, "errors": errors, "details": details})
    assert built.per_goal is not per_goal and built.errors is not errors and built.details is not details
    assert built.details["a"] is details["a"]  # as validation: an Any value passes through as it is
    with pytest.raises(ValidationError):
        built.value = 1.0  # type: ignore[misc]  # frozen, like any Score


@pytest.mark.parametrize(
    "fields",
    [
        {k: v for k, v in BASE.items() if k != "value"},
        {**BASE, "extra": 1},
        {**BASE, "episode_id": 3},
        {**BASE, "details": {1: "a"}},
    ],
)
def test_wrong_fields_are_refused_as_validation_refuses_them(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        Score(**fields)
    with pytest.raises(ValidationError):
        build_score(fields)
