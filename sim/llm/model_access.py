"""Opening a model for any role: resolve its transport on the gateway, starting the embedded server for ``local``.

The agent under test and an LLM user (or judge) may both ask for ``local``: the second one reuses the server the
first started on this gateway rather than starting another.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sim.llm.gateway import Gateway

LOCAL = "local"
LOCAL_PREFIX = "local:"


class ModelUnavailable(ValueError):
    """The model cannot be used here: unknown provider, its package missing, no API key."""


@asynccontextmanager
async def open_model(gateway: Gateway, model: str) -> AsyncIterator[str]:
    """Yield the model name to put in requests; for ``local`` the embedded server runs until the block ends."""
    if model != LOCAL:
        resolve_model(gateway, model)
        yield model
        return
    running = next((name for name in gateway.registered() if name.startswith(LOCAL_PREFIX)), None)
    if running is not None:
        yield running
        return
    from sim.llm.local.server import LocalModelServer
    from sim.llm.transports.openai_chat import OpenAIChatTransport

    async with LocalModelServer() as server:
        # A name that does not carry the server's port, so cache keys stay the same from run to run.
        name = f"{LOCAL_PREFIX}{server.model_name}"
        gateway.register(
            name, OpenAIChatTransport(gateway.http(), server.base_url, server.model_name, gateway.request_timeout_s)
        )
        try:
            yield name
        finally:
            gateway.unregister(name)


def resolve_model(gateway: Gateway, model: str) -> None:
    """Build the model's transport now: an unknown provider, a missing package or key fails here, clearly."""
    try:
        gateway.transport(model)
    except ImportError as exc:  # pydantic-ai's message names the extra to install
        raise ModelUnavailable(f"model {model!r} needs a package that is not installed: {exc}") from exc
    except Exception as exc:  # pydantic-ai raises UserError (unknown provider, no API key) or the SDK's own error
        message = " ".join(str(exc).split()) or type(exc).__name__
        raise ModelUnavailable(f"model {model!r} cannot be used: {message}") from exc
