"""Completion: the final reply gives the exact answer after normalisation; precision against over-inclusive replies."""

from __future__ import annotations

import json
import random
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judges.answers.answer_normalise import (
    decimals,
    fold,
    number_matches,
    render_answer,
    rows,
    structured_matches,
    to_number,
)
from judges.answers.completion import Completion, ReplyContext, match_reply
from sim.core import EpisodeResult, Event, Goal, ToolCall, ToolResult, UserIntent
from tests.support import traces

SINGERS = [
    {"Name": "John Doe", "Country": "France", "Age": 52},
    {"Name": "Jane Smith", "Country": "France", "Age": 31},
    {"Name": "Bob Lee", "Country": "Spain", "Age": 45},
]
TABLE = ReplyContext(said=fold("Which singers are from Spain, older than 30?"), results=(SINGERS,))


def ok(answer: Any, reply: str, context: ReplyContext | None = None) -> bool:
    return match_reply(answer, reply, context).correct


@pytest.mark.parametrize(
    ("answer", "reply"),
    [
        ([{"Name": "John Doe"}], "John Doe"),
        ([{"Name": "John Doe"}], "The oldest singer is **John Doe**."),
        ([{"Name": "John Doe"}], "the oldest singer is JOHN   DOE"),
        ([{"Name": "José Núñez"}], "Jose Nunez"),
        ([{"Name": "O'Brien"}], "O’Brien"),
        ([{"count(*)": 3}], "There are 3 singers older than 30."),
        ([{"count(*)": 3}], "There are three singers."),
        ([{"count(*)": 3}], "3.0"),
        ([{"count(*)": 3}], "3"),
        ([{"count(*)": "3"}], "There are 3."),
        ([{"total": 1234567}], "The total is 1,234,567."),
        ([{"avg(age)": 45.666666666666664}], "The average age is 45.67 years."),
        ([{"avg(age)": 45.666666666666664}], "about 45.7"),
        ([{"count(*)": 0}], "There are no singers older than 30."),
        ([{"count(*)": 0}], "0"),
        ([{"Name": "John Doe"}, {"Name": "Jane Smith"}], "Jane Smith and John Doe."),
        ([{"Name": "John Doe"}, {"Name": "Jane Smith"}], "The two singers are:\n- John Doe\n- Jane Smith"),
        (
            [{"Name": "Alice", "n": 3}, {"Name": "Bob", "n": 5}],
            "| Name | Songs |\n|---|---|\n| Alice | 3 |\n| Bob | 5 |",
        ),
        ([{"Name": "Alice", "n": 3}, {"Name": "Bob", "n": 5}], "Alice has 3 songs and Bob has 5."),
        ([], "There are no singers from Peru."),
        ([], "I didn't find any."),
        ([{"Name": "John Doe"}], '[{"singer": "John Doe"}]'),
        ([{"Name": "John Doe"}], '"John Doe"'),
        ([{"a": 1}, {"a": 2}], "Here:\n```json\n[2, 1.0]\n```"),
        ([{"Name": "Alice", "n": 3}], '["Alice", 3]'),
        ([{"Name": "John Doe"}], "I ran:\n```sql\nSELECT name FROM singer WHERE age > 50 LIMIT 1\n```\nJohn Doe."),
        ([{"Name": "Route 66", "n": 2}], "Route 66, with 2 stops"),
        # the SQL world's gold_answer rendering: "column: value; ..." per record, records joined by " | "
        (
            [{"Name": "Alice", "count(*)": 3}, {"Name": "Bob", "count(*)": 5}],
            "Name: Alice; count(*): 3 | Name: Bob; count(*): 5",
        ),
        ([{"T1.name": "X", "avg(T2.age)": 30.5}], "T1.name: X; avg(T2.age): 30.5"),
    ],
)
def test_right_replies_match(answer: Any, reply: str) -> None:
    assert ok(answer, reply, ReplyContext(said=fold("how many singers are older than 30?"))), reply


@pytest.mark.parametrize(
    ("answer", "reply", "error"),
    [
        ([{"Name": "John Doe"}], "Jane Smith", "answer:missing"),
        ([{"Name": "John Doe"}], "John", "answer:missing"),
        ([{"Name": "Al"}], "Alice", "answer:missing"),
        ([{"count(*)": 3}], "There are 4 singers.", "answer:missing"),
        ([{"count(*)": 3}], "There are 3 or 4 singers.", "answer:extra_number"),
        ([{"count(*)": 3}], "There are 13 singers.", "answer:missing"),
        ([{"count(*)": 3}], "3 singers, average age 45", "answer:extra_number"),
        ([{"avg(age)": 45.666666666666664}], "The average age is 46.", "answer:missing"),
        ([{"avg(age)": 45.666666666666664}], "It is 45.66.", "answer:missing"),
        ([{"n": 1}], "v1.2 of the data", "answer:missing"),
        ([{"Name": "John Doe"}, {"Name": "Jane Smith"}], "John Doe", "answer:missing"),
        ([{"Name": "John Doe"}], "- John Doe\n- Jane Smith\n- Bob Lee", "answer:extra_item"),
        ([{"Name": "John Doe"}], "| Name |\n|---|\n| John Doe |\n| Jane Smith |", "answer:extra_item"),
        ([{"Name": "Alice", "n": 3}, {"Name": "Bob", "n": 5}], "Alice 3, Bob 5, Carol 7", "answer:extra_number"),
        ([], "There are 3 singers.", "answer:missing"),
        ([], "None of them, but 3 are close.", "answer:extra_number"),
        ([{"Name": "John Doe"}], '[{"Name": "John Doe"}, {"Name": "Jane Smith"}]', "answer:structured_mismatch"),
        ([{"a": 1}, {"a": 2}], "[1, 2, 2]", "answer:structured_mismatch"),
        ([{"count(*)": 3}], "", "answer:no_reply"),
        ([{"flag": True}], "no", "answer:missing"),
    ],
)
def test_wrong_replies_do_not_match(answer: Any, reply: str, error: str) -> None:
    verdict = match_reply(answer, reply, ReplyContext(said=fold("how many singers are older than 30?")))
    assert not verdict.correct
    assert any(e.startswith(error) for e in verdict.errors), verdict.errors


def test_a_reply_naming_values_the_agent_saw_beside_the_answer_is_over_inclusive() -> None:
    answer = [{"Name": "Bob Lee"}]
    assert ok(answer, "Bob Lee is the only one.", TABLE)
    assert ok(answer, "Bob Lee, from Spain.", TABLE)  # Spain: the user said it
    assert ok(answer, "Bob Lee (not France).", TABLE)  # another column's value: not an answer-like item
    listing = "The singers are John Doe, Jane Smith and Bob Lee."
    assert match_reply(answer, listing, TABLE).errors == ["answer:extra_value"]
    assert not ok(answer, "Bob Lee; also Jane Smith", TABLE)
    # Without having seen the table, an inline list of names cannot be told from prose (documented limit).
    assert ok(answer, listing)


def test_numbers_the_user_said_and_the_row_count_are_not_extra() -> None:
    said = ReplyContext(said=fold("How many singers are older than 30 in 2 countries?"))
    assert ok([{"n": 3}], "3 singers are older than 30 across the 2 countries.", said)
    assert not ok([{"n": 3}], "3 singers are older than 31.", said)
    assert ok([{"Name": "A b"}, {"Name": "C d"}, {"Name": "E f"}], "The 3 names: A b, C d, E f")


# -- normalisation properties ------------------------------------------------------------------------------------

NUMBER_LIKE = {
    *["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"],
    "no",
    "none",
    "not",
    "null",
}
names = st.from_regex(r"[A-Z][a-z]{2,7}( [A-Z][a-z]{2,7})?", fullmatch=True).filter(
    lambda s: not set(fold(s).split()) & NUMBER_LIKE
)
ints = st.integers(min_value=-(10**9), max_value=10**9)
floats = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False).filter(lambda f: not f.is_integer())
cells = st.one_of(names, ints, floats)


@st.composite
def answers(draw: st.DrawFn) -> list[dict[str, Any]]:
    columns = draw(st.integers(min_value=1, max_value=3))
    n = draw(st.integers(min_value=1, max_value=5))
    table = [{f"c{k}": draw(cells) for k in range(columns)} for _ in range(n)]
    return table


@settings(max_examples=300, deadline=None)
@given(answers(), st.randoms(use_true_random=False))
def test_renderings_and_json_of_an_answer_match_it(answer: list[dict[str, Any]], rng: random.Random) -> None:
    context = ReplyContext(results=(answer,))
    assert ok(answer, render_answer(answer), context), render_answer(answer)
    shuffled = [dict(rng.sample(list(r.items()), len(r))) for r in rng.sample(answer, len(answer))]
    assert ok(answer, json.dumps(shuffled), context)
    assert ok(answer, "Result:\n```json\n" + json.dumps([list(r.values()) for r in shuffled]) + "\n```", context)


@settings(max_examples=300, deadline=None)
@given(answers(), cells)
def test_an_extra_row_never_matches(answer: list[dict[str, Any]], extra: Any) -> None:
    gold_atoms = {a for r in rows(answer) for a in r}
    columns = list(answer[0])
    row = dict.fromkeys(columns, extra)
    (atom,) = set(rows([row])[0])
    if any(atom == g or _same_shown(atom, g) for g in gold_atoms):
        return  # the extra row states nothing new (as rendered: 0.001 shows as 0.00)
    if atom == len(answer):
        return  # reads as the count of rows ("the 3 singers"), which a reply may state
    if isinstance(atom, str) and any(atom in g or g in atom for g in gold_atoms if isinstance(g, str)):
        return  # a name inside another: the phrase rule cannot tell them apart
    seen = ReplyContext(results=([*answer, row],))  # the agent saw the extra row beside the answer
    assert not ok(answer, render_answer([*answer, row]), seen)
    assert not ok(answer, json.dumps([*answer, row]), seen)


@settings(max_examples=200, deadline=None)
@given(answers())
def test_a_missing_row_never_matches(answer: list[dict[str, Any]]) -> None:
    if len(answer) < 2:
        return
    dropped, kept = rows(answer[:1])[0], rows(answer[1:])
    kept_atoms = {a for r in kept for a in r}
    unique = [
        a for a in dropped if not any(a == k or _same_shown(a, k) or fold(str(a)) in fold(str(k)) for k in kept_atoms)
    ]
    if not unique:
        return
    assert not ok(answer, render_answer(answer[1:]), ReplyContext(results=(answer,)))


def _same_shown(a: Any, g: Any) -> bool:
    """Whether the rendering of atom ``a`` states the number ``g`` (two rounded floats can look the same)."""
    if not isinstance(a, Decimal) or not isinstance(g, Decimal):
        return False
    shown = Decimal(render_answer([{"x": float(a) if decimals(a) else int(a)}]))
    return number_matches(shown, g) or number_matches(Decimal(render_answer([{"x": float(g)}])), a)


@given(st.text())
def test_fold_is_idempotent(text: str) -> None:
    assert fold(fold(text)) == fold(text)


@given(ints)
def test_numbers_read_the_same_however_written(n: int) -> None:
    assert to_number(n) == to_number(float(n)) == to_number(str(n)) == to_number(f"{n:,}") == Decimal(n)
    assert ok([{"n": n}], f"The answer is {n:,}.") and ok([{"n": n}], f"{n}.0")


@given(floats, st.integers(min_value=1, max_value=6))
def test_a_float_rounded_to_any_places_matches_and_one_step_off_does_not(value: float, places: int) -> None:
    shown = f"{value:.{places}f}"
    assert ok([{"x": value}], f"It is {shown}.")
    off = Decimal(shown) + Decimal(10) ** -places * 2
    assert not ok([{"x": value}], f"It is {off}.")


def test_structured_comparison_is_a_multiset() -> None:
    assert structured_matches([{"a": 1}, {"a": 1}, {"a": 2}], [{"x": 2}, {"x": 1}, {"x": 1.0}])
    assert not structured_matches([{"a": 1}, {"a": 2}], [{"x": 1}, {"x": 1}, {"x": 2}])
    assert not structured_matches([True], [1])  # booleans are not numbers


# -- the judge -----------------------------------------------------------------------------------------------------


def episode(turns: list[tuple[Any, str | None, Any]], played: int | None = None) -> EpisodeResult:
    """One turn per (answer, reply, tool result content): the agent queries, then replies."""
    events: list[Event] = []
    for i, (_, reply, content) in enumerate(turns):
        events.append(Event(kind="user_message", turn=i, content="Which singer is the oldest?"))
        if content is not None:
            call = ToolCall(id=f"c{i}", name="run_query", arguments={"sql": "SELECT ..."})
            events.append(Event(kind="tool_call", turn=i, call=call, read_only=True))
            events.append(
                Event(
                    kind="tool_result",
                    turn=i,
                    call=call,
                    result=ToolResult(call_id=call.id, status="success", content=content),
                )
            )
        if reply is not None:
            events.append(Event(kind="agent_message", turn=i, content=reply))
    task_turns = [Goal(user=UserIntent(explicit="q"), gold=[], answer=a, gold_answer=None) for a, _, _ in turns]
    return traces.result(task_turns, events, played=played)


async def test_the_judge_scores_the_answer_turns_only() -> None:
    ep = episode(
        [
            ([{"Name": "John Doe"}], "John Doe is the oldest.", SINGERS),
            (None, "Done.", None),
            ([{"count(*)": 3}], "There are 3.", [{"count(*)": 3}]),
            ([{"Name": "John Doe"}], "John Doe, Jane Smith, Bob Lee", SINGERS),
        ]
    )
    score = await Completion().score(ep)
    assert score.value == pytest.approx(2 / 3)
    assert score.per_goal == [1.0, None, 1.0, 0.0]
    assert score.errors == ["goal3:answer:extra_value"]
    assert score.details == {"answer_turns": 3, "right_turns": 2}


async def test_no_answer_turns_is_none_and_unplayed_turns_are_wrong() -> None:
    assert (await Completion().score(episode([(None, "Done.", None)]))).value is None
    ep = episode([([{"n": 1}], "1", None), ([{"n": 2}], None, None)], played=1)
    score = await Completion().score(ep)
    assert score.value == 0.5 and score.errors == ["goal1:answer:not_played"]
    failed = ep.model_copy(update={"termination": "timeout"})
    assert (await Completion().score(failed)).errors == ["episode:timeout"]


async def test_the_oracle_reply_of_a_rendered_answer_scores_one() -> None:
    answers = [[{"Name": "John Doe"}], [{"count(*)": 3}], [{"avg": 45.666666666666664}], SINGERS[:2], []]
    ep = episode([(a, render_answer(a) or "Done.", a) for a in answers])
    assert (await Completion().score(ep)).value == 1.0


def test_a_bare_scalar_reply_is_text_so_a_null_string_in_a_table_matches() -> None:
    # Spider's car_1 stores the text 'null' in a numeric column: MAX over it is the string 'null', not JSON null.
    assert match_reply(["null"], "null").correct
    assert match_reply([{"count(*)": 3}], "3").correct and not match_reply([{"count(*)": 3}], "4").correct


# -- empty answers and refusals ------------------------------------------------------------------------------------

REFUSALS = [
    "I'm sorry, I can't help with that.",
    "I’m sorry, but I cannot assist with that request.",
    "I am unable to answer that question.",
    "Sorry, I could not complete that: the service is unavailable.",
    "I don't have access to that data.",
    "I have no access to the database, so no answer.",
    "I won't be able to help with this.",
]
EMPTY_STATEMENTS = [
    "No results.",
    "There are no singers from Peru.",
    "None.",
    "Nothing matches.",
    "I didn't find any.",
    "The query returned 0 rows.",
    "No, there are none.",
    "There aren't any singers older than 90.",
    "I searched the table and could not find any matching concert.",
    "I cannot find any concerts in that year.",
    "I was unable to find any.",
]
NULL_ROW = [{"max(age)": None}]


@pytest.mark.parametrize("answer", [[], NULL_ROW, [None]])
@pytest.mark.parametrize("reply", EMPTY_STATEMENTS)
def test_an_empty_answer_needs_a_statement_that_nothing_matches(answer: Any, reply: str) -> None:
    assert ok(answer, reply, ReplyContext(said=fold("Which singers are older than 90?"))), reply


NON_ANSWERS = ["Done.", "Something went wrong.", "Let me check that for you.", "I have no idea.", "No problem!"]


@pytest.mark.parametrize("answer", [[], NULL_ROW, [{"count(*)": 0}], [{"n": None}], [{"flag": False}]])
@pytest.mark.parametrize("reply", [*REFUSALS, *NON_ANSWERS])
def test_a_refusal_or_a_non_answer_never_gives_an_empty_answer(answer: Any, reply: str) -> None:
    verdict = match_reply(answer, reply)
    assert not verdict.correct, (answer, reply)


def test_a_row_of_nulls_is_empty_and_null_states_it_but_a_refusal_does_not() -> None:
    assert ok(NULL_ROW, "The maximum age is null: no singer matches.")
    assert ok(NULL_ROW, "null")
    assert match_reply(NULL_ROW, "I can't help with that; the value is unknown.").errors == ["answer:refusal"]
    assert not ok(NULL_ROW, "The maximum age is 45.")
    assert not ok([{"a": None, "b": None}, {"a": None, "b": None}], "No results.")  # two rows: not an aggregate
