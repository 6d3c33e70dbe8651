"""Model spec strings, parsed without importing any provider SDK (the CLI validates them at start-up)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class ModelSpec(BaseModel):
    """A parsed model string: ``openai-chat:NAME@http://host:port/v1`` or any string pydantic-ai accepts."""

    raw: str
    name: str = Field(description="Model name sent to the provider.")
    base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint, when given.")

    @property
    def endpoint(self) -> str:
        """Key for per-endpoint limits: the base URL, else the provider prefix."""
        return self.base_url or self.raw.split(":", 1)[0]


def parse_model_spec(raw: str) -> ModelSpec:
    raw = raw.strip()
    if not raw:
        raise ValueError("empty model spec")
    if "@" in raw:
        head, base_url = raw.rsplit("@", 1)
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"model spec {raw!r}: the part after '@' must be an http(s) base URL")
        provider, _, name = head.partition(":")
        if provider not in ("openai-chat", "openai") or not name:
            raise ValueError(f"model spec {raw!r}: use openai-chat:MODEL@BASE_URL for OpenAI-compatible endpoints")
        return ModelSpec(raw=raw, name=name, base_url=base_url.rstrip("/"))
    return ModelSpec(raw=raw, name=raw.partition(":")[2] or raw)
