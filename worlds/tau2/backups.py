"""Backup paths of τ² tasks, from the rules in ``data/backups.json``: the gold with one lookup done another way.

τ² gives one action sequence per task; squall's backup-path stressors (``outage``, a failure on one function) need
another. A rule names a call (``find_user_id_by_email``) and the call that does the same work
(``find_user_id_by_name_zip``) with its arguments read from the row the first returns. A backup path is kept only
where it is valid for τ²: the user's scenario states every value it needs (an agent can learn them), and replayed
from the task's database it returns what the gold returned at that call and leaves the same database, so τ²'s DB
check cannot tell the paths apart (no domain's reward basis here asks for ACTION, which would).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from sim.core import GoldCall, Task, ToolCall
from worlds.common.toolbook import Toolkit
from worlds.tau2.database import Database, Tables

BACKUPS_FILE = Path(__file__).parent / "data" / "backups.json"


class Rule(BaseModel):
    function: str
    backup: str
    table: str = Field(description="The table whose row id ``function`` returns.")
    arguments: dict[str, str] = Field(description="Backup parameter -> dotted field of that row.")
    why: str = ""


class DomainBackups(BaseModel):
    rules: list[Rule] = Field(default_factory=list)
    none_because: str | None = Field(default=None, description="Why the domain has no rule, where it has none.")


@cache
def domain_backups(domain: str) -> DomainBackups:
    """The domain's rules (none for a domain the file does not name)."""
    raw: dict[str, Any] = json.loads(BACKUPS_FILE.read_text(encoding="utf-8"))
    return DomainBackups.model_validate(raw.get(domain) or {})


def _field(row: Mapping[str, Any], dotted: str) -> Any:
    value: Any = row
    for key in dotted.split("."):
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def _replay(toolkit: Toolkit, base: Tables, path: Sequence[GoldCall]) -> tuple[list[Any], str] | None:
    """Each call's result and the final state hash, or None when a call fails."""
    db = Database(base)
    results = []
    for n, call in enumerate(path):
        result = toolkit.run(db, ToolCall(id=f"backup_{n}", name=call.name, arguments=dict(call.arguments)))
        if not result.ok:
            return None
        results.append(result.content)
    return results, db.state_hash()


def backup_paths(task: Task, domain: str, toolkit: Toolkit, base: Tables) -> list[list[GoldCall]]:
    """Every valid path that does one rule's call the backup's way (the gold's first path only)."""
    gold = task.goals[0].gold
    rules = [
        r for r in domain_backups(domain).rules if r.backup in toolkit.tools and any(c.name == r.function for c in gold)
    ]
    replayed = _replay(toolkit, base, gold) if rules else None
    if replayed is None:
        return []
    results, state = replayed
    told = (task.user_scenario or "").lower()
    paths: list[list[GoldCall]] = []
    for rule in rules:
        at = [n for n, call in enumerate(gold) if call.name == rule.function]
        row = Database(base).row(rule.table, str(results[at[0]]))
        if row is None:
            continue
        arguments = {p: _field(row, f) for p, f in rule.arguments.items()}
        if not all(isinstance(v, str) and v.lower() in told for v in arguments.values()):
            continue  # a value the user never states: no agent could take this path
        backup = GoldCall(name=rule.backup, arguments=arguments)
        path = [backup if n in at else call for n, call in enumerate(gold)]
        again = _replay(toolkit, base, path)
        if again is not None and again[1] == state and all(again[0][n] == results[n] for n in at):
            paths.append(path)
    return paths


def with_backups(task: Task, domain: str, toolkit: Toolkit, base: Tables) -> Task:
    """The task with its backup paths as the goal's alternatives (unchanged where it has none)."""
    paths = backup_paths(task, domain, toolkit, base)
    if not paths:
        return task
    goal = task.goals[0]
    tags = [*task.tags, "tau2:backup_path"]
    return task.model_copy(update={"tags": tags, "goals": [goal.model_copy(update={"alternatives": paths})]})
