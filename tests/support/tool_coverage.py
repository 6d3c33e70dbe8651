"""Which tools of a domain the tests drive down their success and failure paths, checked, not declared.

``covers`` names the tools a scenario test drives down their success path (through ``ok``) and down a
failure path (through ``refused``); the names feed ``success`` / ``failure``, which each domain's coverage
test compares with the domain's tools. When the test runs, the names must equal the domain tools it really
drove, so the registry cannot drift from the tests; ``ok`` / ``refused`` fail outside a ``covers`` test.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any, TypeVar, cast

from sim.core import ToolCall, ToolResult
from worlds.domains.multidomain import MultiDomainPack
from worlds.domains.multidomain.world import MultiDomainWorld

Test = TypeVar("Test", bound=Callable[..., Awaitable[None]])


async def call(world: MultiDomainWorld, name: str, /, **arguments: Any) -> ToolResult:
    return await world.call(ToolCall(id=f"t_{name}", name=name, arguments=arguments))


class ToolCoverage:
    def __init__(self, pack: MultiDomainPack, domain: str) -> None:
        self.tools = frozenset(name for name, tool in pack.toolkit.tools.items() if tool.domain == domain)
        self.success: set[str] = set()
        self.failure: set[str] = set()
        self._driven: ContextVar[dict[str, set[str]]] = ContextVar(f"driven_{domain}")

    def _mark(self, path: str, name: str) -> None:
        driven = self._driven.get(None)
        assert driven is not None, "a test that drives tools through ok / refused must be decorated with @covers"
        driven[path].add(name)

    async def ok(self, world: MultiDomainWorld, name: str, /, **arguments: Any) -> Any:
        result = await call(world, name, **arguments)
        assert result.ok, result.content
        self._mark("success", name)
        return result.content

    async def refused(self, world: MultiDomainWorld, status: str, code: str, name: str, /, **arguments: Any) -> None:
        """The call fails with this status and code and leaves the tables as they were."""
        before = world.state_hash()
        result = await call(world, name, **arguments)
        assert (result.status, result.error_code) == (status, code), result.content
        assert world.state_hash() == before
        self._mark("failure", name)

    def covers(self, *, success: tuple[str, ...] = (), failure: tuple[str, ...] = ()) -> Callable[[Test], Test]:
        declared = {"success": set(success), "failure": set(failure)}
        self.success.update(success)
        self.failure.update(failure)

        def register(test: Test) -> Test:
            @functools.wraps(test)
            async def checked(*args: Any, **kwargs: Any) -> None:
                driven: dict[str, set[str]] = {"success": set(), "failure": set()}
                token = self._driven.set(driven)
                try:
                    await test(*args, **kwargs)
                finally:
                    self._driven.reset(token)
                assert {path: names & self.tools for path, names in driven.items()} == declared, test.__name__

            return cast(Test, checked)

        return register
