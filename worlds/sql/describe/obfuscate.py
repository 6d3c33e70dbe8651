"""Names that say nothing: ``function_985(lambda_sigma=...)``, so an agent must read the descriptions.

Deterministic by seed. Descriptions are rewritten so they say what a function does without naming its tables or
columns (``worlds.sql.describe.opaque``): the names were what obfuscation hides, and a description that kept them (or
the
SQL) would give the function away. Gold calls are renamed to match.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence

from sim.core import Task
from worlds.sql.describe.opaque import OpaqueDatabase, opaque_databases, opaque_function
from worlds.sql.engine.model import SqlFunction
from worlds.sql.query.verify import Database

GREEK = (
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu",
    "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega",
)  # fmt: skip
_PAIRS = [f"{a}_{b}" for a, b in itertools.product(GREEK, GREEK) if a != b]


def obfuscate_world(
    functions: Sequence[SqlFunction], tasks: Sequence[Task], seed: int, databases: Mapping[str, Database]
) -> tuple[list[SqlFunction], list[Task]]:
    """``obfuscate`` with codes for the databases the functions read (their schemas, examples from their data)."""
    used = sorted({f.db_id for f in functions})
    schemas = {db_id: databases[db_id].schema for db_id in used}
    codes = opaque_databases(schemas, {db_id: databases[db_id].connection for db_id in used}, seed)
    return obfuscate(functions, tasks, seed, codes)


def obfuscate(
    functions: Sequence[SqlFunction], tasks: Sequence[Task], seed: int, databases: Mapping[str, OpaqueDatabase]
) -> tuple[list[SqlFunction], list[Task]]:
    rng = random.Random(seed)
    width = max(1000, 10 ** len(str(len(functions) * 10)))
    numbers = rng.sample(range(width // 10, width), len(functions))
    renamed: list[SqlFunction] = []
    names: dict[str, tuple[str, dict[str, str]]] = {}
    for function, number in zip(functions, numbers, strict=True):
        pairs = rng.sample(_PAIRS, len(function.params))
        arguments = {p.name: pair for p, pair in zip(function.params, pairs, strict=True)}
        params = [p.model_copy(update={"name": arguments[p.name]}) for p in function.params]
        new = function.model_copy(update={"name": f"function_{number}", "params": params})
        names[function.name] = (new.name, arguments)
        renamed.append(opaque_function(new, databases[function.db_id]))
    return renamed, [_rename(task, names) for task in tasks]


def _rename(task: Task, names: dict[str, tuple[str, dict[str, str]]]) -> Task:
    data = task.model_dump(mode="json")
    for goal in data["goals"]:
        for path in [goal["gold"], *goal["alternatives"]]:
            for call in path:
                name, arguments = names[call["name"]]
                call["name"] = name
                call["arguments"] = {arguments[k]: v for k, v in call["arguments"].items()}
        if goal.get("tools") is not None:  # a goal's own toolkit (SEL: its database's functions)
            goal["tools"] = [names[name][0] for name in goal["tools"]]
    return Task.model_validate(data)
