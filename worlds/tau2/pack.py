"""A τ² domain as one squall pack: the wheel's database, policy and tasks loaded once, a world per episode.

``tau2:<domain>`` serves every task of the domain (τ²'s ``base`` split, which its runner takes by default);
``tau2:<domain>:<split>`` one of the splits ``split_tasks.json`` names (``train``, ``test``...; ``all`` = ``base``).
A task whose ``initial_state`` changes the database (τ²'s mock domain) gets a base of its own: the shared database
with the task's initialization data merged in and its initialization and history tool calls run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sim.core import GoldCall, Task, ToolCall, ToolSpec, WorldContext
from worlds.common.toolbook import ToolBook, Toolkit
from worlds.tau2.backups import with_backups
from worlds.tau2.database import Database, Tables, freeze_tables
from worlds.tau2.domains import DEFAULT_SPLIT, DOMAINS, NOT_SUPPORTED, Domain
from worlds.tau2.source import Tau2Error, domain_file, read_database, read_json, read_text, read_toml
from worlds.tau2.tasks import build_task
from worlds.tau2.telecom_phone import base_phone
from worlds.tau2.telecom_world import TelecomWorld, initial_sides
from worlds.tau2.world import Tau2World, agent_instructions

SCHEME = "tau2:"
SPLIT_ALIASES = {"all": DEFAULT_SPLIT}


def parse_spec(spec: str) -> tuple[Domain, str]:
    """(domain, split) of ``tau2:<domain>[:<split>]``. Raises Tau2Error naming the spec."""
    domain_name, _, split = spec.removeprefix(SCHEME).partition(":")
    if domain_name in NOT_SUPPORTED:
        raise Tau2Error(f"{spec}: not supported: {NOT_SUPPORTED[domain_name]}")
    domain = DOMAINS.get(domain_name)
    if domain is None:
        known = ", ".join(SCHEME + d for d in DOMAINS)
        raise Tau2Error(f"{spec}: unknown τ² domain '{domain_name}'; known: {known}")
    return domain, SPLIT_ALIASES.get(split, split or DEFAULT_SPLIT)


def split_ids(domain: Domain, split: str) -> list[str] | None:
    """The task ids of a split (None: the domain has no split file, every task)."""
    try:
        splits = read_json(domain_file(domain.name, domain.splits))
    except Tau2Error:
        if split == DEFAULT_SPLIT:
            return None
        raise
    if split not in splits:
        raise Tau2Error(f"{SCHEME}{domain.name}: no split '{split}'; splits: {', '.join(sorted(splits))}")
    return [str(i) for i in splits[split]]


def toolkit(domain: Domain) -> Toolkit:
    book = ToolBook.collect(domain.name, domain.tool_modules)
    return Toolkit([ToolBook(domain.name, tuple(t for t in book.tools if t.spec.name not in domain.without))])


def policy(domain: Domain) -> str:
    """The domain's policy as τ² gives it to the agent: the main policy, and the manual after it where there is one."""
    main = read_text(domain_file(domain.name, domain.policy))
    if domain.manual is None:
        return main
    manual = read_text(domain_file(domain.name, domain.manual))
    return f"<main_policy>\n{main}\n</main_policy>\n<tech_support_policy>\n{manual}\n</tech_support_policy>"


def merge(into: dict[str, Any], update: Mapping[str, Any]) -> None:
    """τ²'s update of a database: mappings merged key by key, anything else replaced."""
    for key, value in update.items():
        if isinstance(value, Mapping) and isinstance(into.get(key), dict):
            merge(into[key], value)
        else:
            into[key] = value


class Tau2Pack:
    """The tasks of one τ² domain (one split); task id = τ²'s task id, task.world = the pack's name."""

    def __init__(self, name: str, domain: Domain, split: str) -> None:
        """Raises Tau2Error (a ValueError) when the wheel is absent or its files are not what squall expects."""
        self.name = name
        self.domain = domain
        self.split = split
        self.toolkit = toolkit(domain)
        self._base = freeze_tables(read_database(domain_file(domain.name, domain.database)))
        self._instructions = agent_instructions(policy(domain))
        self.user_toolkit = Toolkit([ToolBook.collect(f"{domain.name}:user", domain.user_tool_modules)])
        """Dual control: the user's own tools (none: the user only talks)."""
        user_db = domain.user_database
        self._phone: Any = base_phone(read_toml(domain_file(domain.name, user_db))) if user_db else None
        self._phones: dict[str, Any] = {}
        raw_tasks: list[dict[str, Any]] = read_json(domain_file(domain.name, domain.tasks))
        wanted = split_ids(domain, split)
        if wanted is not None:
            by_id = {str(t["id"]): t for t in raw_tasks}
            missing = [i for i in wanted if i not in by_id]
            if missing:
                raise Tau2Error(f"{name}: split '{split}' names unknown task(s) {', '.join(missing[:5])}")
            raw_tasks = [by_id[i] for i in wanted]
        self._bases: dict[str, Tables] = {
            str(t["id"]): self._initial(str(t["id"]), t["initial_state"]) for t in raw_tasks if t.get("initial_state")
        }
        runnable = (self._runnable(build_task(name, domain.name, t)) for t in raw_tasks)
        self._tasks = tuple(
            with_backups(t, domain.name, self.toolkit, self._bases.get(t.id, self._base)) for t in runnable
        )
        self.same_world_every_seed = not self._bases
        """Every world starts from the wheel's database unless a task brings its own initial state."""

    def tasks(self) -> list[Task]:
        return list(self._tasks)

    def tool_specs(self) -> list[ToolSpec]:
        return list(self.toolkit.specs)

    def tool_domains(self) -> dict[str, str]:
        return {spec.name: self.domain.name for spec in self.toolkit.specs}

    def new_world(self, seed: int, context: WorldContext | None = None) -> Tau2World:
        task = context.task if context is not None else None
        base = self._bases.get(task.id, self._base) if task is not None else self._base
        if self._phone is None:
            return Tau2World(self.name, self.toolkit, base, self._instructions, seed=seed)
        phone = self._phones.get(task.id, self._phone) if task is not None else self._phone
        criteria = task.evaluation if task is not None and task.evaluation is not None else {}
        assertions: Any = criteria.get("env_assertions") or []
        return TelecomWorld(
            self.name, self.toolkit, base, self._instructions, self.user_toolkit, phone, assertions, seed=seed
        )

    def _runnable(self, task: Task) -> Task:
        """The task with the gold calls that fail, and repeated lookups, left out of its plan. τ²'s gold may call
        what errs on purpose (an id the user first gives wrong: τ² replays its actions ignoring errors, and an error
        changes nothing), while squall's gold is a plan that executes, each lookup once; the ACTION check reads every
        action from ``Task.evaluation``."""
        goal = task.goals[0]
        world = Database(self._bases.get(task.id, self._base))
        kept: list[GoldCall] = []
        for n, call in enumerate(goal.gold):
            if call in kept and self.toolkit.tools[call.name].spec.read_only:
                continue  # a lookup τ²'s gold repeats: one plan reads it once
            if self.toolkit.run(world, ToolCall(id=f"gold_{n}", name=call.name, arguments=dict(call.arguments))).ok:
                kept.append(call)
        if len(kept) == len(goal.gold):
            return task
        tags = [*task.tags, f"tau2:gold_left_out:{len(goal.gold) - len(kept)}"]
        kept_before = [sum(1 for c in goal.gold[:n] if c in kept) for n in range(len(goal.gold) + 1)]
        user_gold = [u.model_copy(update={"after": kept_before[min(u.after, len(goal.gold))]}) for u in goal.user_gold]
        update = {"gold": kept, "user_gold": user_gold}
        return task.model_copy(update={"tags": tags, "goals": [goal.model_copy(update=update)]})

    def _initial(self, task_id: str, state: Mapping[str, Any]) -> Tables:
        """The database a task with an initial state starts from (and, in a dual-control domain, its phone)."""
        if self._phone is not None:
            base, self._phones[task_id] = initial_sides(
                self._base, self._phone, state.get("initialization_actions") or []
            )
            return base
        db = Database(self._base)
        whole = db.whole()
        data = (state.get("initialization_data") or {}).get("agent_data")
        if data:
            merge(whole, data)
        db = Database(freeze_tables(whole))
        calls = [
            (a["func_name"], a.get("arguments") or {})
            for a in state.get("initialization_actions") or []
            if a.get("env_type", "assistant") == "assistant"
        ]
        for message in state.get("message_history") or []:
            if message.get("role") == "assistant":
                calls += [(c["name"], c.get("arguments") or {}) for c in message.get("tool_calls") or []]
        for n, (tool, arguments) in enumerate(calls):
            result = self.toolkit.run(db, ToolCall(id=f"init_{n}", name=tool, arguments=dict(arguments)))
            if not result.ok:
                raise Tau2Error(f"{self.name}: an initialization call {tool} failed: {result.content}")
        return freeze_tables(db.whole())


def load_pack(spec: str) -> Tau2Pack:
    domain, split = parse_spec(spec)
    return Tau2Pack(spec, domain, split)


def listing() -> list[dict[str, Any]]:
    """One row per τ² domain for ``squall worlds list``: its spec, task count and splits (with their sizes), or why
    it cannot run. Cheap: the task files are read, no database."""
    rows: list[dict[str, Any]] = []
    for name, domain in DOMAINS.items():
        row: dict[str, Any] = {"name": SCHEME + name, "kind": "tau2", "supported": True, "reason": None}
        try:
            row["conversations"] = len(read_json(domain_file(name, domain.tasks)))
            splits = read_json(domain_file(name, domain.splits))
            row["splits"] = {s: len(ids) for s, ids in splits.items()}
        except Tau2Error:
            row.update(conversations=None, splits={})
        rows.append(row)
    rows += [
        {"name": SCHEME + n, "kind": "tau2", "supported": False, "reason": r, "conversations": None, "splits": {}}
        for n, r in NOT_SUPPORTED.items()
    ]
    return rows


def spec_names(domains: Sequence[str] = tuple(DOMAINS)) -> list[str]:
    return [SCHEME + d for d in domains]
