"""The pieces of `worlds draft-gold`: the answer read strictly, the calls' accepted orders (writes keep theirs), the
prompt under its bound, the APIs check, and which tasks a pass drafts."""

from __future__ import annotations

import json

import pytest

from sim.core import GoldCall, Task
from sim.core.task import GOLD_ARGUMENTS_UNKNOWN
from worlds.simulated.draft_gold import Rejected, check_apis, orders, tasks_to_draft, with_gold
from worlds.simulated.draft_gold_prompt import REQUEST, PromptTooLong, gold_prompt, parse_calls
from worlds.simulated.operations import ApiOperation


def operation(name: str, method: str = "get", required: tuple[str, ...] = ("q",)) -> ApiOperation:
    properties = {"q": {"type": "string", "description": "what to look for"}, "limit": {"type": "integer"}}
    return ApiOperation(
        name=name, method=method, path=f"/{name}", summary=name, description=f"{name} things",
        parameters={"type": "object", "properties": properties, "required": list(required)}, writes=method == "post",
        source=f"test#{name}",
    )  # fmt: skip


OPERATIONS = {name: operation(name, method) for name, method in [("a", "get"), ("b", "get"), ("w1", "post"),
                                                                  ("w2", "post")]}  # fmt: skip


def task(task_id: str, tags: list[str], source: str | None = None, gold: tuple[str, ...] = ("a",)) -> Task:
    goal = {"user": {"explicit": "find x"}, "gold": [{"name": n} for n in gold]}
    return Task.model_validate({"id": task_id, "world": "w", "tags": tags, "gold_source": source, "goals": [goal]})


def test_answers_are_read_strictly() -> None:
    fenced = '```json\n[{"name": "a", "arguments": {"q": "x"}}, {"name": "b", "arguments": "{\\"q\\": \\"y\\"}"}]\n```'
    assert parse_calls(fenced) == [GoldCall(name="a", arguments={"q": "x"}), GoldCall(name="b", arguments={"q": "y"})]
    assert parse_calls('{"calls": [{"name": "a"}]}') == [GoldCall(name="a")]
    for text, why in [("no idea", "no JSON list"), ("[]", "non-empty list"), ('[{"arguments": {}}]', "call 0"),
                      ("[1, 2", "no JSON list"), ('[{"name": "a", "arguments": [1]}]', "call 0 (a): arguments"),
                      ('[{"name": "a", "arguments": "{no"}]', "a string that is not JSON")]:  # fmt: skip
        with pytest.raises(ValueError, match=r".*") as error:
            parse_calls(text)
        assert why in str(error.value), (text, str(error.value))


def test_every_order_is_accepted_while_the_writes_keep_theirs() -> None:
    a, b, w1, w2 = (GoldCall(name=n, arguments={"q": n}) for n in ("a", "b", "w1", "w2"))
    assert orders([a, b], OPERATIONS) == [[a, b], [b, a]]
    assert orders([a, a], OPERATIONS) == [[a, a]]  # a repeat once
    paths = orders([w1, a, w2], OPERATIONS)
    assert paths[0] == [w1, a, w2] and len(paths) == 3
    assert all([c for c in p if c.name.startswith("w")] == [w1, w2] for p in paths)
    assert orders([a] * 5, OPERATIONS) == [[a] * 5]  # past MAX_PERMUTED: the drafted order only


def test_drafted_gold_is_marked_and_leaves_unstated_optionals_free() -> None:
    calls = [GoldCall(name="a", arguments={"q": "x", "limit": 3})]
    drafted = with_gold(task("1", ["toolbench", GOLD_ARGUMENTS_UNKNOWN]), calls, OPERATIONS, "m")
    assert drafted.gold_source == "drafted:m" and drafted.tags == ["toolbench"]
    assert drafted.goals[0].gold == calls and drafted.goals[0].free_arguments == ["a.limit"]
    assert json.loads(drafted.model_dump_json())["gold_source"] == "drafted:m"
    assert "gold_source" not in task("2", []).model_dump_json()  # authored tasks dump as before


def test_the_calls_must_be_the_tasks_apis() -> None:
    check_apis([GoldCall(name="a"), GoldCall(name="a"), GoldCall(name="b")], ["a", "b"])
    with pytest.raises(Rejected, match="calls w1, not one of the task's APIs"):
        check_apis([GoldCall(name="a"), GoldCall(name="w1")], ["a"])
    with pytest.raises(Rejected, match="leaves out b"):
        check_apis([GoldCall(name="a")], ["a", "b"])


def test_the_prompt_holds_the_request_and_the_schemas_under_its_bound() -> None:
    def count(text: str) -> int:
        return len(text) // 4 + 1

    ops = [OPERATIONS["a"], OPERATIONS["b"]]
    _, user = gold_prompt("find x", ops, count, 10_000)
    assert user.content is not None and user.content.startswith(REQUEST.format(request="find x"))
    assert 'q*: string "what to look for"' in user.content and "/b" in user.content
    with pytest.raises(PromptTooLong, match="over --max-prompt-tokens 50"):
        gold_prompt("find x", ops, count, 50)


def test_which_tasks_a_pass_drafts() -> None:
    tasks = [task("1", [GOLD_ARGUMENTS_UNKNOWN]), task("2", [], "drafted:m"), task("3", [])]
    assert [t.id for t in tasks_to_draft(tasks, only_missing=False)] == ["1", "2"]
    assert [t.id for t in tasks_to_draft(tasks, only_missing=True)] == ["1"]
    assert [t.id for t in tasks_to_draft(tasks, only_missing=False, ids=["2"])] == ["2"]
    with pytest.raises(ValueError, match="no task '9'"):
        tasks_to_draft(tasks, False, ["1", "9"])
    with pytest.raises(ValueError, match="task '3' has its author's gold"):
        tasks_to_draft(tasks, False, ["3"])
