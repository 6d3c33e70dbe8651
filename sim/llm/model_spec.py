"""Model spec strings, parsed without importing any provider SDK (the CLI validates them at start-up)."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

_ENDPOINT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""A configured endpoint's name (``sim.llm.endpoints``): no ':' or '/', so never mistaken for a URL."""


class ModelSpec(BaseModel):
    """A parsed model string: ``openai-chat:NAME@http://host:port/v1``, ``openai-chat:NAME@ENDPOINT`` (a configured
    ``[endpoints.ENDPOINT]`` table) or any string pydantic-ai accepts."""

    raw: str
    name: str = Field(description="Model name sent to the provider.")
    base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint, when given.")
    endpoint_name: str | None = Field(default=None, description="The configured endpoint it names, when it names one.")

    @property
    def endpoint(self) -> str:
        """Key for per-endpoint limits: the base URL, else the named endpoint, else the provider prefix."""
        return self.base_url or (f"@{self.endpoint_name}" if self.endpoint_name else self.raw.split(":", 1)[0])


def parse_model_spec(raw: str) -> ModelSpec:
    raw = raw.strip()
    if not raw:
        raise ValueError("empty model spec")
    if "@" in raw:
        head, base_url = raw.rsplit("@", 1)
        named = _ENDPOINT_NAME.fullmatch(base_url) is not None
        if not base_url.startswith(("http://", "https://")) and not named:
            raise ValueError(
                f"model spec {raw!r}: the part after '@' must be an http(s) base URL or a configured endpoint's name"
            )
        provider, _, name = head.partition(":")
        if provider not in ("openai-chat", "openai") or not name:
            raise ValueError(f"model spec {raw!r}: use openai-chat:MODEL@BASE_URL for OpenAI-compatible endpoints")
        if named:
            return ModelSpec(raw=raw, name=name, endpoint_name=base_url)
        return ModelSpec(raw=raw, name=name, base_url=base_url.rstrip("/"))
    return ModelSpec(raw=raw, name=raw.partition(":")[2] or raw)
