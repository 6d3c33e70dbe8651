"""What a world offers, as data: domains, tools, the dependency graph and dataset statistics.

Works for any pack: a pack with a ``toolkit`` (the multi-domain world) gives domains and the graph; any
other has one domain named after it and no declared graph.
"""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

from sim.core import WorldPack


def describe(pack: WorldPack) -> dict[str, Any]:
    toolkit = getattr(pack, "toolkit", None)
    specs = pack.new_world(0).specs()
    domain_of = {name: tool.domain for name, tool in toolkit.tools.items()} if toolkit is not None else {}
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
    turns = [len(task.turns) for task in tasks]
    all_turns = [turn for task in tasks for turn in task.turns]
    calls = [len(turn.gold) for turn in all_turns]
    core = [sum(c.role == "core" for c in turn.gold) for turn in all_turns]

    def mean(values: list[int]) -> float:
        return round(statistics.fmean(values), 2) if values else 0.0

    return {
        "conversations": len(tasks),
        "turns": {
            "total": len(all_turns),
            "per_conversation": mean(turns),
            "min": min(turns, default=0),
            "max": max(turns, default=0),
        },
        "calls": {"total": sum(calls), "per_turn": mean(calls), "core_per_turn": mean(core)},
        "turn_kinds": {
            "coreferential": sum(t.user.coreferential is not None for t in all_turns),
            "questions": sum(t.gold_answer is not None for t in all_turns),
            "with_alternatives": sum(bool(t.alternatives) for t in all_turns),
        },
        "tags": dict(Counter(tag for task in tasks for tag in task.tags).most_common()),
    }
