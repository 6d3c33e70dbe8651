"""The direct-invocation plan format: what the parser reads, and how a reference to an earlier output resolves."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sim.agents.direct_plan import Plan, PlanError, PlannedCall, parse_plan, references, render_plan, resolve

CALLS = [
    {"name": "select_book_by_genre", "arguments": {"value": "Poetry"}, "label": "POEMS"},
    {"name": "get_book_title", "arguments": {"keys": "$POEMS$"}, "label": "TITLES"},
]
EXPECTED = (
    PlannedCall("select_book_by_genre", {"value": "Poetry"}, "POEMS"),
    PlannedCall("get_book_title", {"keys": "$POEMS$"}, "TITLES"),
)


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(CALLS),
        f"Here is the plan:\n```json\n{json.dumps(CALLS, indent=2)}\n```\n",
        "".join(f"<tool_call>{json.dumps(c)}</tool_call>\n" for c in CALLS),  # Qwen's form, one tag per call
        json.dumps([{**c, "parameters": c["arguments"]} for c in CALLS]).replace('"arguments"', '"unused"'),
        json.dumps([{**c, "arguments": json.dumps(c["arguments"])} for c in CALLS]),  # arguments as a JSON string
    ],
)
def test_every_form_of_the_same_plan_reads_alike(text: str) -> None:
    plan = parse_plan(text)
    assert isinstance(plan, Plan) and plan.calls == EXPECTED


def test_a_rendered_plan_reads_back() -> None:
    assert parse_plan(render_plan(list(EXPECTED))) == Plan(EXPECTED)


def test_a_single_call_without_the_list_is_a_plan() -> None:
    plan = parse_plan(json.dumps(CALLS[0]))
    assert isinstance(plan, Plan) and plan.calls == EXPECTED[:1]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("There is no tool for that.", "There is no tool for that."),
        ("[]", ""),
        ("[] No tool does it.", "No tool does it."),
    ],
)
def test_words_or_an_empty_list_plan_no_call(text: str, words: str) -> None:
    assert parse_plan(text) == Plan((), words)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[{"name": "f", "arguments": {"a": 1}', "not valid JSON"),
        ('[{"arguments": {}}]', 'with a "name"'),
        ('[{"name": "f", "arguments": [1]}]', "must be a JSON object"),
        ('{"plan": [1, 2]}', 'with a "name"'),
        ("<tool_call>{not json}</tool_call>", "not valid JSON"),
    ],
)
def test_a_broken_plan_is_an_error_never_an_answer(text: str, message: str) -> None:
    plan = parse_plan(text)
    assert isinstance(plan, PlanError) and message in plan.message


KEYS = {"type": "object", "properties": {"keys": {"type": "array", "items": {"type": "integer"}}}}
VALUE = {"type": "object", "properties": {"id": {"type": "integer"}}}
REF = {"type": "object", "properties": {"ref": {"type": "string"}}}


@pytest.mark.parametrize(
    ("argument", "output", "schema", "expected"),
    [
        ("$A$", [{"key": 1}, {"key": 4}], KEYS, [1, 4]),  # one-field records fill a list as their values
        ("$A.key$", [{"key": 1, "title": "x"}, {"key": 4, "title": "y"}], KEYS, [1, 4]),
        ("$A.key$", [{"key": 7, "title": "x"}], KEYS, [7]),
        ("$A$", {"results": [], "hint": "No rows matched."}, KEYS, []),  # an empty result with a hint
        ("$A.id$", [{"id": 5}], VALUE, 5),  # one record fills a single value
        ("$A$", [{"id": 5}], VALUE, 5),
        ("$A.ref$", {"ref": "r2", "rows": []}, REF, "r2"),
        ("$A$", 3, KEYS, [3]),
    ],
)
def test_a_reference_takes_the_output_in_the_parameter_s_shape(
    argument: str, output: Any, schema: dict[str, Any], expected: Any
) -> None:
    name = next(iter(schema["properties"]))
    resolved, missing = resolve(PlannedCall("f", {name: argument, "other": "$not a reference"}), {"A": output}, schema)
    assert resolved == {name: expected, "other": "$not a reference"} and missing == []


@pytest.mark.parametrize("argument", ["$B$", "$A.title$"])
def test_a_reference_to_nothing_stays_as_written_and_is_reported(argument: str) -> None:
    resolved, missing = resolve(PlannedCall("f", {"keys": argument}), {"A": [{"key": 1}]}, KEYS)
    assert resolved == {"keys": argument} and missing == [argument]


def test_references_are_the_labels_later_calls_take() -> None:
    assert references(EXPECTED) == {"POEMS"}
