"""The handle a world gets on the episode's gateway: what it asks is the world's, never the agent's."""

from __future__ import annotations

from sim.core import LLMHandle, ModelRequest, ModelResponse


class WorldLLM:
    """Sends a world's model requests (responses a model writes) through the episode's handle as role ``world``.

    The role is set here, not trusted to the world: a request marked ``agent`` would spend the agent's step budget
    and be billed as the agent's."""

    steps = 0
    """A world's requests are never agent steps."""

    def __init__(self, llm: LLMHandle) -> None:
        self._llm = llm

    async def complete(self, request: ModelRequest) -> ModelResponse:
        if request.role != "world":
            request = request.model_copy(update={"role": "world"})
        return await self._llm.complete(request)
