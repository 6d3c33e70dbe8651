"""The simulated world: an imported API's operations as tools, answered from a cache or by a model.

A call goes through three gates, in order:
1. the operation's argument schema, checked as a strict server would (missing, unknown or mistyped arguments are
   ``invalid_arguments``; never sent to a model);
2. the response cache, keyed by operation, canonical arguments and the episode's state (``worlds.simulated.cache``);
3. on a miss, the simulator model through the episode's ``world`` handle (``worlds.simulated.simulate``), if the run's
   cache mode allows it: ``read-only`` never asks, ``read-write`` stores the answer, ``off`` keeps it for this run
   only. A miss the run may not simulate (read-only, no model, no handle outside a run) is ``world:not_cached`` when
   the call is on the task's gold path (the cache was not warmed for it: the episode is not scored); off that path
   the agent gets a readable 503 coded ``cache:not_recorded`` (it left the recorded path: scored, and counted).

State: a successful call of a write operation is remembered (operation, arguments, response) for the rest of the
episode; the model sees these changes, so a created item can be read back, and the cache keys answers by them. The
state judge compares these writes with the gold's (``task_state``).
Results the world could not produce carry a ``world:`` code: judges exclude such episodes (``EpisodeResult.failed``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from sim.core import Task, ToolCall, ToolResult, ToolSpec, WorldContext, failure
from sim.core.trace import CACHE_MISS_CODE
from worlds.common.arguments import ArgumentChecker
from worlds.common.task_check import check_tasks_static
from worlds.gold_check import GOLD_ARGUMENTS_UNKNOWN
from worlds.simulated.cache import FAILED_KEY, CachedResponse, ResponseStore, entry_key, is_failure
from worlds.simulated.canonical import canonical_json, digest, normalised
from worlds.simulated.operations import ApiOperation, ApiSpec
from worlds.simulated.simulate import Answer, ResponseChecker, SimulationFailed, simulate, tool_status

NOT_CACHED = "world:not_cached"
SIMULATION_FAILED = "world:simulation_failed"
NOT_RECORDED = (
    "Not available (HTTP 503): this service answers from recorded responses only, and this request is not among "
    "them. The request itself is valid; another way to the same answer (other arguments or operations) may be."
)
INSTRUCTIONS = """\
You help users of the {title} service through its API; each tool is one operation of it.
- Use only the tools provided and the values the user or earlier results gave; never invent ids.
- If an operation fails, read its error: fix the arguments, or use another operation that gets the same result.
- Answer with the facts the operations returned."""


def strict_schema(parameters: Any) -> dict[str, Any]:
    """The argument schema a strict server enforces: unknown top-level arguments are refused."""
    schema = dict(normalised(parameters))
    schema.setdefault("additionalProperties", False)
    return schema


def documented_defaults(parameters: Any) -> dict[str, Any]:
    """The top-level arguments whose schema gives a default, with it."""
    properties = parameters.get("properties", {}) if isinstance(parameters, dict) else {}
    return {name: normalised(schema["default"]) for name, schema in properties.items() if "default" in schema}


class LazyCheckers(Mapping[str, ArgumentChecker]):
    """Operation name -> its argument checker, compiled on first use: checking a schema costs tens of milliseconds,
    and a spec of thousands of operations has most of them never called in a run."""

    def __init__(self, operations: Mapping[str, ApiOperation]) -> None:
        self._operations = operations
        self._built: dict[str, ArgumentChecker] = {}

    def __getitem__(self, name: str) -> ArgumentChecker:
        if name not in self._built:
            self._built[name] = ArgumentChecker(strict_schema(self._operations[name].parameters))
        return self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._operations)

    def __len__(self) -> int:
        return len(self._operations)


class AnyArguments(LazyCheckers):
    """Checkers that accept any arguments: for gold that names operations without their arguments."""

    def __getitem__(self, name: str) -> ArgumentChecker:
        if name not in self._operations:
            raise KeyError(name)
        return ArgumentChecker({"type": "object"})


class SimulatedRuntime:
    """What every episode of one simulated world shares: operations, checkers, the cache and calls in flight."""

    def __init__(self, spec: ApiSpec, store: ResponseStore, model: str | None) -> None:
        self.spec = spec
        self.store = store
        self.model = model
        self.operations = {op.name: op for op in spec.operations}
        self.specs = [op.tool_spec() for op in spec.operations]
        self.checkers = LazyCheckers(self.operations)
        self.responses = {op.name: ResponseChecker(op.response_schema) for op in spec.operations}
        self.defaults = {op.name: documented_defaults(op.parameters) for op in spec.operations}
        self.retry_failures = False
        """Cached simulation failures are asked again (``worlds warm``) rather than replayed."""
        self.run_only: dict[tuple[str, str], CachedResponse] = {}  # cache mode off: answers kept for this run
        self._in_flight: dict[tuple[str, str], asyncio.Future[CachedResponse]] = {}

    def cached(self, name: str, arguments: Any, state: str) -> CachedResponse | None:
        return self.store.get(name, arguments, state) or self.run_only.get((name, entry_key(arguments, state)))

    async def answer(
        self, context: WorldContext, name: str, arguments: Any, state: str, memory: Sequence[tuple[str, Any, Any]]
    ) -> CachedResponse:
        """The cached answer, or the model's (one request for concurrent identical misses). Raises
        SimulationFailed, or LookupError when the run may not ask a model."""
        hit = self.cached(name, arguments, state)
        if hit is not None and not (self.retry_failures and is_failure(hit.response)):
            return hit
        mode = context.cache_mode or "read-only"
        if mode == "read-only" or context.llm is None or self.model is None:
            why = "no simulator model is configured" if self.model is None else "this run may not ask one"
            raise LookupError(f"no cached response for this call, and {why} (fill the cache: squall worlds warm)")
        key = (name, entry_key(arguments, state))
        pending = self._in_flight.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[CachedResponse] = asyncio.get_running_loop().create_future()
        self._in_flight[key] = future
        try:
            operation = self.operations[name]
            seed = int(digest([name, arguments, state], 8), 16) & 0x7FFFFFFF
            try:
                reply: Any = (await simulate(
                    context.llm, self.model, self.spec.title, operation, arguments,
                    self.store.examples(name), memory, self.responses[name], seed,
                )).to_json()  # fmt: skip
            except SimulationFailed as error:
                if error.transient:  # the provider, not the model's answers: ask again next time
                    raise
                reply = {FAILED_KEY: str(error)}  # kept too: a re-run with the same seed replays it, asking nothing
            entry = CachedResponse(arguments, state, reply, self.model)
            stored = mode == "read-write"
            entry = self.store.put(name, entry) if stored else self.run_only.setdefault(key, entry)
            future.set_result(entry)
            return entry
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: a failure nobody else awaited is not logged as unhandled
            raise
        finally:
            del self._in_flight[key]


def gold_keys(task: Task, runtime: SimulatedRuntime) -> frozenset[tuple[str, str]]:
    """(operation, canonical arguments) of every gold call of ``task`` that fits its operation, read as ``call``
    reads an agent's call (defaults filled in): what the task's cache was warmed with."""
    keys = set()
    for goal in task.goals:
        for path in goal.paths():
            for gold in path:
                if gold.name not in runtime.operations:
                    continue
                checker = runtime.checkers[gold.name]
                if checker.problems(dict(gold.arguments)) is None:
                    read = {**runtime.defaults[gold.name], **checker.normalised(dict(gold.arguments))}
                    keys.add((gold.name, canonical_json(read)))
    return frozenset(keys)


class SimulatedWorld:
    """One episode's view: the shared runtime, the episode's context and its memory of writes."""

    def __init__(self, name: str, runtime: SimulatedRuntime, context: WorldContext, instructions: str) -> None:
        self.name = name
        self._runtime = runtime
        self._context = context
        self._instructions = instructions
        self._memory: list[tuple[str, Any, Any]] = []
        self._gold_keys: frozenset[tuple[str, str]] | None = None  # built on the first miss

    def specs(self) -> list[ToolSpec]:
        return list(self._runtime.specs)

    def instructions(self) -> str:
        return self._instructions

    async def call(self, call: ToolCall) -> ToolResult:
        operation = self._runtime.operations.get(call.name)
        if operation is None:
            return failure(call, "not_found", "unknown_tool", f"No tool named '{call.name}'.")
        checker = self._runtime.checkers[call.name]
        problem = checker.problems(dict(call.arguments))
        if problem is not None:
            return failure(call, "invalid_arguments", problem[0], problem[1])
        # An argument left out that has a documented default is that default, as the service reads it: the call
        # written either way is one cache key.
        arguments = normalised({**self._runtime.defaults[call.name], **checker.normalised(dict(call.arguments))})
        try:
            entry = await self._runtime.answer(self._context, call.name, arguments, self.state_key(), self._memory)
        except LookupError as error:
            if self._on_gold_path(call.name, arguments):  # the cache lacks the task's own gold: not the agent's doing
                return failure(call, "unavailable", NOT_CACHED, f"The simulated service has no answer: {error}.")
            return failure(call, "unavailable", CACHE_MISS_CODE, NOT_RECORDED)
        except SimulationFailed as error:
            return failure(call, "unavailable", SIMULATION_FAILED, f"The simulated service failed: {error}.")
        if is_failure(entry.response):
            why = entry.response[FAILED_KEY]
            return failure(call, "unavailable", SIMULATION_FAILED, f"The simulated service failed: {why}.")
        answer = Answer.from_json(entry.response)
        status = tool_status(answer.status)
        if status != "success":
            return ToolResult(call_id=call.id, status=status, content=answer.body, error_code=f"http_{answer.status}")
        if operation.writes:
            self._memory.append((call.name, arguments, answer.body))
        return ToolResult(call_id=call.id, status="success", content=answer.body)

    def _on_gold_path(self, name: str, arguments: Any) -> bool:
        """Whether this call and every write before it are calls of the task's gold (any path, any goal): a miss
        there means the cache was not warmed for the task; anywhere else the agent left the recorded path."""
        if self._gold_keys is None:
            task = self._context.task
            self._gold_keys = gold_keys(task, self._runtime) if task is not None else frozenset()
        return (name, canonical_json(arguments)) in self._gold_keys and all(
            (op, canonical_json(args)) in self._gold_keys for op, args, _ in self._memory
        )

    def state_key(self) -> str:
        """What the cache keys answers by beside the arguments: '' before any write, then a digest of the writes."""
        return digest(self._memory) if self._memory else ""

    def task_state(self) -> dict[str, Any]:
        """The write memory as state (``sim.core.task_state``), for the state judge: one path per distinct write
        the service accepted, ``operation(canonical arguments)`` with documented defaults filled in (so a write
        spelled either way is one path). A POST's value counts how often it was made (each creates another item); a
        PUT, PATCH or DELETE made twice leaves the service as once: True. Reads change nothing and never appear."""
        state: dict[str, Any] = {}
        for name, arguments, _ in self._memory:
            path = f"{name}({canonical_json(arguments)})"
            state[path] = state.get(path, 0) + 1 if self._runtime.operations[name].method == "post" else True
        return state

    def snapshot(self) -> list[list[Any]]:
        return [[name, arguments, body] for name, arguments, body in self._memory]

    def restore(self, snapshot: Any) -> None:
        self._memory = [(name, arguments, body) for name, arguments, body in snapshot]

    def state_hash(self) -> str:
        return digest([self.name, self._memory])


class SimulatedPack:
    """An imported API, its tasks and its response cache, loaded once; ``new_world`` is cheap."""

    def __init__(
        self,
        spec: ApiSpec,
        tasks: Sequence[Task],
        store: ResponseStore,
        model: str | None = None,
        folder: Path | None = None,
    ) -> None:
        """Raises ValueError when a task does not fit the operations."""
        self.name = spec.name
        self.folder = folder
        """The world folder it was read from (None: built in code)."""
        self.runtime = SimulatedRuntime(spec, store, model)
        self._tasks = tuple(tasks)
        known = [task for task in self._tasks if GOLD_ARGUMENTS_UNKNOWN not in task.tags]
        check_tasks_static(known, self.name, self.runtime.checkers)
        check_tasks_static(  # the rest name operations only (ToolBench queries): names and goal tool lists
            [task for task in self._tasks if GOLD_ARGUMENTS_UNKNOWN in task.tags],
            self.name,
            AnyArguments(self.runtime.operations),
        )
        self._instructions = INSTRUCTIONS.format(title=spec.title or spec.name)

    @property
    def simulator_model(self) -> str | None:
        return self.runtime.model

    def with_simulator_model(self, model: str) -> SimulatedPack:
        """The same API, tasks and cache, misses simulated by ``model`` (``--world-model``)."""
        return SimulatedPack(self.spec, self._tasks, self.runtime.store, model, self.folder)

    def with_tasks(self, tasks: Sequence[Task]) -> SimulatedPack:
        """The same API and cache serving other tasks (a task file naming this world)."""
        return SimulatedPack(self.spec, tasks, self.runtime.store, self.runtime.model, self.folder)

    @property
    def spec(self) -> ApiSpec:
        return self.runtime.spec

    def operation(self, name: str) -> ApiOperation | None:
        return self.runtime.operations.get(name)

    def tasks(self) -> list[Task]:
        return list(self._tasks)

    def tool_specs(self) -> list[ToolSpec]:
        return list(self.runtime.specs)

    def new_world(self, seed: int, context: WorldContext | None = None) -> SimulatedWorld:
        return SimulatedWorld(self.name, self.runtime, context or WorldContext(), self._instructions)
