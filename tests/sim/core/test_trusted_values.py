"""``trusted`` builds the very value validation builds: equal, same hash, same dumps, same set fields, frozen."""

from __future__ import annotations

import pickle
import random
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from sim.core import ModelCall, Usage
from sim.core.trusted import trusted


def _same(built: BaseModel, validated: BaseModel) -> None:
    assert type(built) is type(validated)
    assert built == validated and validated == built
    assert hash(built) == hash(validated)
    assert built.model_dump_json() == validated.model_dump_json()
    assert built.model_dump() == validated.model_dump()
    assert repr(built) == repr(validated)
    assert built.model_fields_set == validated.model_fields_set
    assert list(built.__dict__) == list(validated.__dict__)
    assert built.model_dump_json(exclude_unset=True) == validated.model_dump_json(exclude_unset=True)
    assert pickle.loads(pickle.dumps(built)) == validated
    assert built.model_copy(update={}) == validated.model_copy(update={})


def _usage_fields(rng: random.Random) -> dict[str, Any]:
    return {
        "requests": rng.randint(0, 3),
        "input_tokens": rng.randint(0, 5000),
        "output_tokens": rng.randint(0, 500),
        "cost": rng.random() / 100,
        "retries": rng.randint(0, 2),
        "cached": rng.randint(0, 1),
        "working_s": rng.random() * 3,
        "waiting_s": rng.random(),
        "cached_input_tokens": rng.choice([0, rng.randint(1, 4000)]),  # 0: left out of dumps, as validation leaves it
        "reasoning_tokens": rng.choice([0, rng.randint(1, 400)]),
        "truncated": rng.randint(0, 1),
    }


def test_a_trusted_usage_is_the_validated_one() -> None:
    rng = random.Random(7)
    for _ in range(200):
        fields = _usage_fields(rng)
        _same(trusted(Usage, fields), Usage(**fields))
        given = ("retries", "working_s", "waiting_s")
        defaults = {name: info.default for name, info in Usage.model_fields.items()}  # dumps leave zero details out
        partial = {**defaults, **{k: fields[k] for k in given}}
        _same(trusted(Usage, partial, given), Usage(**{k: fields[k] for k in given}))


def test_a_trusted_model_call_is_the_validated_one() -> None:
    rng = random.Random(3)
    for _ in range(200):
        fields: dict[str, Any] = {
            "role": rng.choice(["agent", "user", "world"]),
            "turn": rng.randint(0, 5),
            "goal": rng.choice([None, 0, 2]),
            "step": rng.randint(0, 4),
            "t": round(rng.random() * 10, 4),
            "input_tokens": rng.randint(0, 5000),
            "output_tokens": rng.randint(0, 300),
            "latency_s": round(rng.random(), 4),
            "waiting_s": round(rng.random(), 4),
            "retries": rng.randint(0, 2),
            "cached": rng.random() < 0.5,
            "cached_input_tokens": rng.choice([0, rng.randint(1, 4000)]),
            "reasoning_tokens": rng.choice([0, rng.randint(1, 300)]),
            "truncated": rng.random() < 0.3,
            "output_limit": rng.choice([None, 512]),
            "reasoning": rng.choice(["", "The user wants the light on: call set_power."]),
        }
        _same(trusted(ModelCall, fields), ModelCall(**fields))


def test_a_trusted_value_stays_frozen() -> None:
    usage = trusted(Usage, Usage(requests=1).model_dump())
    with pytest.raises(ValidationError):
        usage.requests = 2  # type: ignore[misc]


def test_usage_sums_are_the_validated_sums() -> None:
    rng = random.Random(11)
    for _ in range(100):
        a, b = Usage(**_usage_fields(rng)), Usage(**_usage_fields(rng))
        _same(a + b, Usage(**{name: getattr(a, name) + getattr(b, name) for name in Usage.model_fields}))
