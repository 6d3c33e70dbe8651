"""ToolBench queries (the G1/G2/G3 instruction files, StableToolBench's solvable queries) as Tasks.

Each query is one goal: the user says the ``query``; the goal's toolkit (``Goal.tools``) is the query's
``api_list``, as ToolBench offers it; the gold is its ``relevant APIs`` as calls. ToolBench gives no reference
arguments, and squall's ``GoldCall`` has no "any arguments" form, so each gold call has no arguments and the task
is tagged ``gold-arguments-unknown``: call F1's intent numbers (right APIs, as ToolBench's own API score) and the
answer judges are meaningful, its slot numbers are not, and a simulator should not execute these gold calls as
they stand. ToolBench scores relevant APIs as a set, while squall's call alignment follows order, so every other
order of up to ``MAX_PERMUTED`` relevant APIs is an accepted alternative path.
"""

from __future__ import annotations

from itertools import islice, permutations
from pathlib import Path
from typing import Any

from sim.core import Goal, GoldCall, Task, UserIntent
from sim.core.task import GOLD_ARGUMENTS_UNKNOWN
from worlds.simulated.problems import Problems, extend
from worlds.simulated.spec_files import load_document
from worlds.simulated.toolbench_catalogue import Catalogue, query_api

MAX_PERMUTED = 4
"""Relevant APIs up to which every order is accepted (4! = 24 paths); longer lists keep the file's order only."""
UNKNOWN_ARGUMENTS_TAG = GOLD_ARGUMENTS_UNKNOWN
RELEVANT = "relevant APIs"


def read_queries(path: Path, world: str, catalogue: Catalogue) -> list[Task]:
    """The queries of ``path`` (a JSON list) as Tasks of ``world``; APIs only a query documents join ``catalogue``."""
    path = Path(path)
    document = load_document(path)
    problems = Problems(str(path))
    if not isinstance(document, list) or not document:
        problems.add("", "a ToolBench queries file must be a non-empty JSON list of queries")
        problems.raise_if_any()
    tasks: list[Task] = []
    seen: dict[str, int] = {}
    for index, item in enumerate(document):
        task = _task(item, extend("", index), problems, catalogue, path, world)
        if task is None:
            continue
        if task.id in seen:
            problems.add(extend("", index, "query_id"), f"query_id '{task.id}' is also query #{seen[task.id]}'s")
            continue
        seen[task.id] = index
        tasks.append(task)
    problems.raise_if_any()
    return tasks


def _task(item: Any, where: str, problems: Problems, catalogue: Catalogue, path: Path, world: str) -> Task | None:
    if not isinstance(item, dict):
        problems.add(where, "a query must be an object with 'query', 'api_list' and 'relevant APIs'")
        return None
    query, api_list, relevant = item.get("query"), item.get("api_list"), item.get(RELEVANT)
    query_id = item.get("query_id", where.rsplit("/", 1)[-1])
    before = len(problems)
    if not isinstance(query, str) or not query.strip():
        problems.add(extend(where, "query"), "'query' must be a non-empty string")
    if not isinstance(query_id, str | int) or isinstance(query_id, bool) or str(query_id) == "":
        problems.add(extend(where, "query_id"), "'query_id' must be a number or a string")
    if not isinstance(api_list, list):
        problems.add(extend(where, "api_list"), "'api_list' must be a list of APIs")
    if not isinstance(relevant, list) or not relevant:
        problems.add(extend(where, RELEVANT), f"'{RELEVANT}' must be a non-empty list of [tool_name, api_name]")
    if len(problems) > before:
        return None
    assert isinstance(query, str) and isinstance(api_list, list) and isinstance(relevant, list)  # checked above
    offered: list[str] = []
    for index, entry in enumerate(api_list):
        key = query_api(entry, extend(where, "api_list", index), problems, catalogue, path.name)
        if key is not None and catalogue.by_key[key] not in offered:
            offered.append(catalogue.by_key[key])
    gold: list[str] = []
    for index, pair in enumerate(relevant):
        at = extend(where, RELEVANT, index)
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(part, str) for part in pair)):
            problems.add(at, "a relevant API must be a [tool_name, api_name] pair of strings")
            continue
        name = catalogue.by_key.get((pair[0], pair[1]))
        if name is None:
            problems.add(at, f"no API '{pair[1]}' of tool '{pair[0]}' in the tool files or the query's api_list")
            continue
        if name not in gold:
            gold.append(name)
    if len(problems) > before:
        return None
    orders = [list(order) for order in permutations(gold)] if len(gold) <= MAX_PERMUTED else [gold]
    paths = [[GoldCall(name=name) for name in order] for order in islice(orders, 1, None)]
    return Task(
        id=str(query_id),
        world=world,
        description=f"ToolBench query {query_id} ({path.stem})",
        tags=["toolbench", path.stem, UNKNOWN_ARGUMENTS_TAG],
        goals=[
            Goal(
                user=UserIntent(explicit=query.strip()),
                gold=[GoldCall(name=name) for name in gold],
                alternatives=paths,
                tools=[*offered, *(name for name in gold if name not in offered)],
            )
        ],
    )
