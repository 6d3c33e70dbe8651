"""A task's free arguments (``Goal.free_arguments``) are checked when the world loads its tasks: each must be an
optional argument of a tool the goal's gold calls."""

from __future__ import annotations

import pytest

from sim.core import Goal, GoldCall, Task, UserIntent
from worlds.common.arguments import ArgumentChecker
from worlds.common.task_check import check_tasks_static

LIST_SCHEMA = {
    "type": "object",
    "properties": {"to": {"type": "string"}, "limit": {"type": "integer"}, "page": {"type": "integer"}},
    "required": ["to"],
}


def goal(free: list[str]) -> Goal:
    gold = [GoldCall(name="list_messages", arguments={"to": "+15550001"})]
    return Goal(user=UserIntent(explicit="x"), gold=gold, free_arguments=free)


def test_a_task_file_naming_a_free_argument_no_gold_tool_takes_or_requires_is_refused() -> None:
    checkers = {name: ArgumentChecker(dict(LIST_SCHEMA)) for name in ("list_messages", "list_calls")}

    def check(free: list[str]) -> None:
        check_tasks_static([Task(id="t1", world="w", goals=[goal(free)])], "w", checkers)

    check(["limit", "list_messages.page"])
    with pytest.raises(ValueError, match=r"task t1: goals.0.free_arguments: 'limt': no argument of the tools"):
        check(["limt"])
    with pytest.raises(ValueError, match=r"'list_messages.to': required by list_messages, so always constrained"):
        check(["list_messages.to"])
