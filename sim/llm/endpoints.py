"""Named endpoints: how to reach an OpenAI-compatible server and what to send it, configured like a real one.

A run config's ``[endpoints.NAME]`` table (or ``--endpoint NAME.KEY=VALUE`` options) gives the base URL, the
environment variable that holds the key (never the key itself), extra headers, prices per million tokens (so
``--max-cost`` works for any endpoint; cached input at its own price where the provider discounts it), which sampling
parameters the server takes and, for a provider that requires one, the output cap to send. A model string then names
it: ``openai-chat:MODEL@NAME``; a model given with a URL (``openai-chat:MODEL@http://...``) uses the endpoint with
that base URL, if one is configured.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

ENDPOINT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
SECRET = "***"
"""What a manifest stores in place of a header's value: headers may carry credentials."""

Sampling = Literal["standard", "reasoning", "none"]


class EndpointSettings(BaseModel):
    """One ``[endpoints.NAME]`` table."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    base_url: str = Field(description="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1.")
    api_key_env: str | None = Field(
        default=None,
        description="Environment variable holding this endpoint's key (default: SQUALL_API_KEY, then OPENAI_API_KEY).",
    )
    headers: dict[str, str] = Field(default_factory=dict, description="Extra HTTP headers sent with every request.")
    input_price: float | None = Field(default=None, ge=0, description="USD per million input tokens.")
    output_price: float | None = Field(default=None, ge=0, description="USD per million output tokens.")
    cached_input_price: float | None = Field(
        default=None,
        ge=0,
        description="USD per million input tokens read from the provider's prompt cache (default: input_price).",
    )
    sampling: Sampling = Field(
        default="standard",
        description="standard: send temperature and max_tokens; reasoning: send neither, but max_completion_tokens "
        "(reasoning models reject the others); none: send no sampling parameter.",
    )
    max_output_tokens: int | None = Field(
        default=None,
        ge=1,
        description="Output cap sent with every request that sets none (as max_tokens; max_completion_tokens with "
        "sampling = reasoning), for a provider or model family that requires one. Default: no cap is sent, the "
        "provider's own limit holds (a reply is never cut by squall's default; it may cost more).",
    )

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError(f"{value!r} is not an http(s) URL")
        return value.rstrip("/")

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
            raise ValueError(f"{value!r} is not an environment variable name (the variable's name, not the key)")
        return value

    def api_key(self) -> str | None:
        """The key from the named variable; None when none is named. A named variable that is unset is an error."""
        if self.api_key_env is None:
            return None
        key = os.environ.get(self.api_key_env)
        if not key:
            raise ValueError(f"environment variable {self.api_key_env} (api_key_env of {self.base_url}) is not set")
        return key

    def cost(self, input_tokens: int, output_tokens: int, cached_input_tokens: int = 0) -> float | None:
        """USD for one request at this endpoint's prices; None when it has none. ``cached_input_tokens`` are part of
        ``input_tokens`` (as every provider counts them), priced at ``cached_input_price`` where one is given."""
        if self.input_price is None and self.output_price is None and self.cached_input_price is None:
            return None
        input_price = self.input_price or 0.0
        cached = min(cached_input_tokens, input_tokens) if self.cached_input_price is not None else 0
        cached_price, output_price = self.cached_input_price or 0.0, self.output_price or 0.0
        return ((input_tokens - cached) * input_price + cached * cached_price + output_tokens * output_price) / 1e6

    def for_manifest(self) -> dict[str, object]:
        """What a run records: everything but header values."""
        data = self.model_dump(mode="json")
        data["headers"] = {name: SECRET for name in self.headers}
        return data


OPENAI_BASE_URL = "https://api.openai.com/v1"


def default_api_key(base_url: str | None) -> str:
    """SQUALL_API_KEY or OPENAI_API_KEY; a local endpoint without either gets a placeholder."""
    key = os.environ.get("SQUALL_API_KEY") or os.environ.get("OPENAI_API_KEY")
    if key:
        return key
    if base_url is None:
        raise ValueError("Set the OPENAI_API_KEY environment variable to use OpenAI's API")
    return "EMPTY"


def find_endpoint(
    endpoints: Mapping[str, EndpointSettings], name: str | None, base_url: str | None
) -> EndpointSettings | None:
    """The endpoint a model string names (``@NAME``), or the one configured for its base URL."""
    if name is not None:
        return endpoints.get(name)
    if base_url is not None:
        wanted = base_url.rstrip("/")
        return next((e for e in endpoints.values() if e.base_url == wanted), None)
    return None


def parse_endpoint_options(items: list[str]) -> dict[str, dict[str, object]]:
    """``--endpoint NAME=BASE_URL`` and ``--endpoint NAME.KEY=VALUE`` (``NAME.headers.HEADER=VALUE``) options as
    the config's ``endpoints`` table. Raises ValueError naming the malformed one."""
    out: dict[str, dict[str, object]] = {}
    for item in items:
        key, sep, value = item.partition("=")
        name, dot, field = key.strip().partition(".")
        if not sep or not ENDPOINT_NAME.fullmatch(name):
            raise ValueError(f"expected NAME=BASE_URL or NAME.KEY=VALUE, got {item!r}")
        table = out.setdefault(name, {})
        if not dot:
            table["base_url"] = value.strip()
        elif field.startswith("headers."):
            headers = table.setdefault("headers", {})
            assert isinstance(headers, dict)
            headers[field.removeprefix("headers.")] = value
        else:
            table[field] = value.strip()
    return out
