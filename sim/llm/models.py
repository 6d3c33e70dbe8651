"""Turn model spec strings into pydantic-ai models whose every request goes through the gateway."""

from __future__ import annotations

import os
from typing import Any

import httpx2
from openai import AsyncOpenAI
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model, ModelRequestParameters, infer_model
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.providers.openai_compatible import OpenAICompatibleProvider
from pydantic_ai.settings import ModelSettings

from sim.core import LLMHandle, Usage
from sim.llm.model_spec import ModelSpec, parse_model_spec

__all__ = ["GatewayModel", "ModelFactory", "ModelSpec", "parse_model_spec", "settings"]


class ModelFactory:
    """Run-level owner of HTTP clients and provider models. Close it when the run ends."""

    def __init__(self, timeout_s: float = 120.0, max_connections: int = 512) -> None:
        # A bare httpx2 client allows 100 connections: too few for a high-concurrency run.
        self._http = httpx2.AsyncClient(
            limits=httpx2.Limits(max_connections=max_connections, max_keepalive_connections=128),
            timeout=httpx2.Timeout(timeout_s, connect=10),
        )
        self._models: dict[str, Model] = {}

    def build(self, spec: ModelSpec) -> Model:
        if spec.raw not in self._models:
            self._models[spec.raw] = self._build(spec)
        return self._models[spec.raw]

    def _build(self, spec: ModelSpec) -> Model:
        if spec.base_url is not None or spec.raw.startswith("openai-chat:"):
            # max_retries=0: the gateway must see every 429 to honour Retry-After and account waiting time.
            client = AsyncOpenAI(base_url=spec.base_url, api_key=_api_key(spec), max_retries=0, http_client=self._http)
            provider = OpenAICompatibleProvider(spec.endpoint, openai_client=client)
            return OpenAIChatModel(spec.name, provider=provider)
        return infer_model(spec.raw)

    async def aclose(self) -> None:
        await self._http.aclose()


def _api_key(spec: ModelSpec) -> str:
    if spec.base_url is not None:
        return os.environ.get("SQUALL_API_KEY") or os.environ.get("OPENAI_API_KEY") or "EMPTY"
    return os.environ.get("OPENAI_API_KEY", "")


NO_SDK_RETRIES: ModelSettings = {"max_retries": 0}


class GatewayModel(WrapperModel):
    """Routes each request of a wrapped model through an episode's gateway handle."""

    def __init__(self, wrapped: Model, endpoint: str, handle: LLMHandle) -> None:
        super().__init__(wrapped)
        self._endpoint = endpoint
        self._handle = handle

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        async def once() -> ModelResponse:
            return await self.wrapped.request(messages, model_settings, model_request_parameters)

        response = await self._handle.run(self._endpoint, once)
        self._handle.record_usage(
            Usage(
                requests=1,
                input_tokens=response.usage.input_tokens,
                output_tokens=response.usage.output_tokens,
                cost=_cost(response),
            )
        )
        return response


def _cost(response: ModelResponse) -> float:
    try:
        return float(response.cost().total_price)
    except Exception:  # unpriced models (local, mock, compatible endpoints) have no price
        return 0.0


def settings(max_tokens: int | None, temperature: float | None, extra: dict[str, Any] | None = None) -> ModelSettings:
    out: dict[str, Any] = dict(NO_SDK_RETRIES)
    if max_tokens is not None:
        out["max_tokens"] = max_tokens
    if temperature is not None:
        out["temperature"] = temperature
    out.update(extra or {})
    return out  # type: ignore[return-value]
