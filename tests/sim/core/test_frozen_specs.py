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


async def test_frozen_specs_cross_pydantic_ai_over_http() -> None:
    """pydantic-ai's schema transformers deep-copy the tool schema and then edit the copy: the transport must
    hand them plain data. A FunctionModel runs no transformer, so this goes through the real OpenAI model."""
    import httpx2
    from openai import AsyncOpenAI
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai_compatible import OpenAICompatibleProvider

    from sim.core import ChatMessage, ModelRequest
    from sim.llm.transports.pydantic_ai import PydanticAITransport
    from sim.mockllm import FirstToolPolicy, MockConfig
    from tests.support.mockllm_server import mock_llm_server
    from worlds.registry import load_world

    specs = tuple(load_world("multidomain").new_world(0).specs())
    with mock_llm_server(MockConfig(policy=FirstToolPolicy())) as server:
        async with httpx2.AsyncClient(timeout=10) as http:
            client = AsyncOpenAI(base_url=server.url, api_key="EMPTY", max_retries=0, http_client=http)
            model = OpenAIChatModel("mock-model", provider=OpenAICompatibleProvider("mock", openai_client=client))
            request = ModelRequest(
                role="agent", model="mock-model", messages=(ChatMessage(role="user", content="hi"),), tools=specs
            )
            reply = await PydanticAITransport(model).send(request)
    assert reply.response.tool_calls and reply.response.tool_calls[0].name == specs[0].name
