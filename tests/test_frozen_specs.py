"""Tool specs are shared by every episode: nothing may change one in place."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from sim.core import ToolSpec
from sim.core.frozen import FrozenDict, FrozenList, freeze, thaw
from worlds.common.arguments import ArgumentChecker


def _spec() -> ToolSpec:
    return ToolSpec(
        name="set_level",
        description="Set a level.",
        parameters={
            "type": "object",
            "properties": {"level": {"type": "integer", "enum": [1, 2]}},
            "required": ["level"],
        },
    )


def test_nested_parameters_refuse_every_change() -> None:
    params = _spec().parameters
    with pytest.raises(TypeError, match="frozen"):
        params["properties"]["level"]["type"] = "string"
    with pytest.raises(TypeError):
        params["required"].append("other")
    with pytest.raises(TypeError):
        params.update({"x": 1})
    with pytest.raises(TypeError):
        del params["properties"]


def test_frozen_values_encode_compare_copy_and_pickle_like_plain_json() -> None:
    spec = _spec()
    plain = thaw(spec.parameters)
    assert type(plain) is dict and type(plain["required"]) is list
    assert spec.parameters == plain and json.loads(json.dumps(spec.parameters)) == plain
    assert copy.deepcopy(spec.parameters) is spec.parameters
    restored = pickle.loads(pickle.dumps(spec))
    assert restored == spec and isinstance(restored.parameters["required"], FrozenList)
    assert ToolSpec.model_validate_json(spec.model_dump_json()) == spec


def test_a_changed_spec_is_a_new_spec_built_from_a_thawed_copy() -> None:
    spec = _spec()
    params = thaw(spec.parameters)
    params["properties"]["level"]["description"] = "drifted"
    changed = spec.model_copy(update={"parameters": freeze(params)})
    assert "description" not in spec.parameters["properties"]["level"]
    assert isinstance(changed.parameters, FrozenDict)


def test_schema_validators_accept_frozen_schemas() -> None:
    checker = ArgumentChecker(_spec().parameters)
    assert checker.problems({"level": 1}) is None
    assert checker.problems({"level": 3}) is not None
