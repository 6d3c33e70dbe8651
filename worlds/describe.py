"""What a world offers, as data: domains, tools, the dependency graph and dataset statistics.

Works for any pack: a ``ToolkitPack`` (the multi-domain world) gives domains and the graph, a ``DomainPack`` (BFCL's
multi-turn categories) the domains; any other has one domain named after it and no declared graph.
"""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any, Protocol, runtime_checkable

from sim.core import WorldPack
from worlds.common.toolbook import Toolkit


@runtime_checkable
class ToolkitPack(Protocol):
    """A pack whose tools come from a ``Toolkit``: each tool's domain and prerequisites are known."""

    toolkit: Toolkit


@runtime_checkable
class DomainPack(Protocol):
    """A pack that says which domain each tool belongs to, without a declared graph (BFCL: the backend class)."""

    def tool_domains(self) -> dict[str, str]: ...


def describe(pack: WorldPack) -> dict[str, Any]:
    toolkit = pack.toolkit if isinstance(pack, ToolkitPack) else None
    specs = pack.tool_specs()
    domain_of = {name: tool.domain for name, tool in toolkit.tools.items()} if toolkit is not None else {}
    if isinstance(pack, DomainPack):
        domain_of = pack.tool_domains()
    tools = [
        {
            "name": spec.name,
            "domain": domain_of.get(spec.name, pack.name),
            "read_only": spec.read_only,
            "requires": list(toolkit.tools[spec.name].requires) if toolkit is not None else [],
            "description": spec.description,
        }
        for spec in specs
    ]
    domains = list(dict.fromkeys(t["domain"] for t in tools))
    per_domain = Counter(t["domain"] for t in tools)
    return {
        "name": pack.name,
        "domains": [{"name": d, "tools": per_domain[d]} for d in domains],
        "tools": tools,
        "dependency_graph": {t["name"]: t["requires"] for t in tools if t["requires"]},
        **dataset_statistics(pack),
    }


def dataset_statistics(pack: WorldPack) -> dict[str, Any]:
    tasks = pack.tasks()
    goals = [len(task.goals) for task in tasks]
    all_goals = [goal for task in tasks for goal in task.goals]
    calls = [len(goal.gold) for goal in all_goals]
    core = [sum(c.role == "core" for c in goal.gold) for goal in all_goals]

    def mean(values: list[int]) -> float:
        return round(statistics.fmean(values), 2) if values else 0.0

    return {
        "conversations": len(tasks),
        "goals": {
            "total": len(all_goals),
            "per_conversation": mean(goals),
            "min": min(goals, default=0),
            "max": max(goals, default=0),
        },
        "calls": {"total": sum(calls), "per_goal": mean(calls), "core_per_goal": mean(core)},
        "goal_kinds": {
            "coreferential": sum(g.user.coreferential is not None for g in all_goals),
            "questions": sum(g.gold_answer is not None for g in all_goals),
            "with_alternatives": sum(bool(g.alternatives) for g in all_goals),
        },
        "tags": dict(Counter(tag for task in tasks for tag in task.tags).most_common()),
    }
