"""squall's τ² tools against the wheel's own (``wheel_tools``): every gold action sequence of airline and retail, run
step by step in both, must refuse the same calls and leave equal databases after every step.

Equal: the wheel's pydantic dump with fields left at None dropped (squall's records never hold them), numbers by
value (``sim.core.task_state.canonical``: 25 == 25.0)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from sim.core import ToolCall
from sim.core.task_state import canonical
from worlds.registry import load_world

source = pytest.importorskip("worlds.tau2.source")
try:
    source.package_root()
except source.Tau2Error:
    pytest.skip("the inspect-evals wheel is not installed (make setup)", allow_module_level=True)

from tests.worlds.tau2.wheel_tools import (  # noqa: E402
    WheelToolError,
    back_to_base,
    changed_records,
    wheel_tool_classes,
    without_none,
)
from worlds.tau2 import Tau2Pack  # noqa: E402

NOT_DB_TOOLS = {"calculate", "transfer_to_human_agents"}
"""Tools the wheel keeps outside its database classes (they change nothing)."""


def record(tools: Any, table: str, key: str) -> Any:
    found = getattr(tools.db, table).get(key)
    return None if found is None else canonical(without_none(found.model_dump()))


def disagreements(pack: Tau2Pack, wheel_class: Any) -> tuple[int, list[str]]:
    """(steps compared, each disagreement named by task and step). After each step the records either side changed
    are compared; the rest of both databases is their base, compared whole once."""
    fresh, theirs = wheel_class(), wheel_class()
    fresh.initialize()
    theirs.initialize()
    first = pack.new_world(0)
    assert without_none(fresh.db.model_dump()) == first.db.whole()  # the bases agree, record by record
    steps, problems = 0, []
    for task in pack.tasks():
        assert task.evaluation is not None
        actions: list[Any] = task.evaluation["actions"]  # type: ignore[assignment]
        ours = pack.new_world(0)
        for n, action in enumerate(actions):
            name, arguments = action["name"], action["arguments"]
            if name in NOT_DB_TOOLS:
                continue
            try:
                getattr(theirs, name)(**copy.deepcopy(arguments))
                wheel_ok = True
            except WheelToolError:
                wheel_ok = False
            mine = ours.execute(ToolCall(id=str(n), name=name, arguments=copy.deepcopy(arguments)))
            steps += 1
            touched = changed_records(theirs, fresh) | ours.db.written()
            differ = [k for k in sorted(touched) if record(theirs, *k) != canonical(ours.db.row(*k))]
            if mine.ok != wheel_ok:
                problems.append(f"task {task.id} step {n} {name}: wheel ok={wheel_ok}, squall {mine.status}")
            elif differ:
                problems.append(f"task {task.id} step {n} {name}: records differ: {differ[:3]}")
        back_to_base(theirs, fresh)  # for the next task
    return steps, problems


@pytest.mark.slow
@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_squall_tools_leave_the_wheels_database_after_every_gold_step(domain: str) -> None:
    pack = load_world(f"tau2:{domain}")  # before the wheel's packages are entered: squall finds them unimported
    assert isinstance(pack, Tau2Pack)
    with wheel_tool_classes() as classes:
        steps, problems = disagreements(pack, classes[domain])
    assert steps > 100 and problems == []
