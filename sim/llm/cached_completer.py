"""The response cache in front of the retry loop: a hit is answered from disk and makes no endpoint request.

It wraps the whole attempt path rather than the bare transport on purpose: a hit must not wait for admission, take
a connection or spend the endpoint's token budget (a re-run from the cache is free and unpaced, as before).
"""

from __future__ import annotations

from sim.core import ModelRequest, ModelResponse, Usage
from sim.llm.cache import ResponseCache
from sim.llm.completer import Caller, Completer, Route

CACHE_HIT = Usage(cached=1)
"""What a hit spends: no request, no tokens, no time."""
CACHE_HIT_CUT = Usage(cached=1, truncated=1)
"""A hit whose reply was cut at the output limit: still a reply cut, as when it was first asked."""


class CachedCompleter:
    def __init__(self, inner: Completer, cache: ResponseCache) -> None:
        self.inner = inner
        self.cache = cache

    async def complete(self, request: ModelRequest, route: Route, caller: Caller) -> ModelResponse:
        hit = await self.cache.get(request)
        if hit is not None:
            caller.charge(request, CACHE_HIT_CUT if hit.truncated else CACHE_HIT, hit)
            return hit
        response = await self.inner.complete(request, route, caller)
        await self.cache.put(request, response)
        return response
