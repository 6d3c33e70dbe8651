"""Names that say nothing: ``function_985(lambda_sigma=...)``, so an agent must read the descriptions.

Deterministic by seed. Descriptions keep their text (they name arguments through their slots, so they follow
the new names); gold calls are renamed to match.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

from sim.core import Task
from worlds.sql.model import SqlFunction

GREEK = (
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu",
    "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega",
)  # fmt: skip
_PAIRS = [f"{a}_{b}" for a, b in itertools.product(GREEK, GREEK) if a != b]


def obfuscate(
    functions: Sequence[SqlFunction], tasks: Sequence[Task], seed: int
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
        renamed.append(new)
    return renamed, [_rename(task, names) for task in tasks]


def _rename(task: Task, names: dict[str, tuple[str, dict[str, str]]]) -> Task:
    data = task.model_dump(mode="json")
    for goal in data["goals"]:
        for path in [goal["gold"], *goal["alternatives"]]:
            for call in path:
                name, arguments = names[call["name"]]
                call["name"] = name
                call["arguments"] = {arguments[k]: v for k, v in call["arguments"].items()}
    return Task.model_validate(data)
