"""A draft as a task: ``answer`` and ``gold_answer`` together, a lookup without an answer refused, optional arguments
the request does not state left free, repeats recognised whatever their case and spacing, and an answer checked
against the values of the responses."""

from __future__ import annotations

import json
from typing import Any

import pytest

from worlds.simulated.draft import draft_key, parse_draft
from worlds.simulated.draft_answer import answer_text, ungrounded
from worlds.simulated.operations import ApiOperation

PARAMETERS = {
    "type": "object",
    "properties": {"status": {"type": "string"}, "limit": {"type": "integer"}, "id": {"type": "string"}},
    "required": ["id"],
}
OPERATIONS = {
    name: ApiOperation(name=name, method=method, path="/t", parameters=PARAMETERS, writes=writes, source="s")
    for name, method, writes in (("listTickets", "get", False), ("closeTicket", "post", True))
}


def draft(**fields: Any) -> str:
    return "Here you go:\n" + json.dumps(fields)


def test_an_answer_comes_with_the_oracles_reply_and_unstated_optional_arguments_are_free() -> None:
    calls = [{"name": "listTickets", "arguments": {"id": "T-1", "status": "pending", "limit": 5}}]
    task = parse_draft(draft(request="Is ticket T-1 Pending?", calls=calls, answer=["Ana", 2.5]), "w", "d", OPERATIONS)
    goal = task.goals[0]
    assert goal.answer == ["Ana", 2.5] and goal.gold_answer == "Ana, 2.5"
    assert goal.free_arguments == ["listTickets.limit"]  # status is stated (case aside), id is required


def test_a_lookup_with_no_answer_is_refused_and_a_change_needs_none() -> None:
    lookup = [{"name": "listTickets", "arguments": {"id": "T-1"}}]
    with pytest.raises(ValueError, match="a lookup with no answer"):
        parse_draft(draft(request="Show T-1", calls=lookup), "w", "d", OPERATIONS)
    change = [{"name": "closeTicket", "arguments": {"id": "T-1"}}]
    goal = parse_draft(draft(request="Close T-1", calls=change, answer=None), "w", "d", OPERATIONS).goals[0]
    assert goal.answer is None and goal.gold_answer is None


def test_repeats_are_the_same_request_and_calls_whatever_the_case_and_spacing() -> None:
    calls = [{"name": "closeTicket", "arguments": {"id": "T-1"}}]
    first = parse_draft(draft(request="Close T-1.", calls=calls), "w", "a", OPERATIONS)
    again = parse_draft(draft(request="  close   t-1", calls=calls), "w", "b", OPERATIONS)
    other = parse_draft(draft(request="Close T-1", calls=[{"name": "closeTicket", "arguments": {"id": "T-2"}}]),
                        "w", "c", OPERATIONS)  # fmt: skip
    assert draft_key(first) == draft_key(again) != draft_key(other)


def test_an_answer_must_be_values_of_the_responses() -> None:
    responses = [{"items": [{"name": "Ana Souza", "hours": 24, "open": True}]}, {"count": "3"}]
    assert ungrounded(["ana  souza", 24.0, 3, True], responses) == []
    assert ungrounded(["Ana", "24 h", False], responses) == ["Ana", "24 h", "False"]
    assert answer_text([{"name": "Ana", "n": 2}, {"name": "Li", "n": 3}]) == "Ana, 2\nLi, 3"
