"""The answer judges on values as real databases store them: a reply that gives the answer as the oracle writes it
(``worlds.sql.query.verify.answer_text``) is right, whatever the values hold — line breaks (an address over two lines),
tabs, trailing spaces, Unicode, NULLs, floats stored as text, REALs that JSON writes with an exponent, blanks — and
the null agent's refusal, or any other refusal, is never right."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from judges.answers.answer_facts import goal_facts, missing_facts
from judges.answers.answer_normalise import fold
from judges.answers.completion import ReplyContext, match_reply
from sim.agents.baselines import NullAgent
from sim.core import Goal, UserIntent
from worlds.sql.engine.execute import QueryResult
from worlds.sql.query.verify import answer_text, answer_value

REFUSALS = [
    "I'm sorry, I can't help with that.",
    "Sorry, I could not complete that: the service is unavailable.",
    "I am unable to answer that question.",
    "I don't have access to that information.",
]
WORD = r"[A-Z][a-z]{2,7}"
texts = st.one_of(
    st.text(st.characters(codec="utf-8"), min_size=1, max_size=12),
    st.from_regex(rf"{WORD}( {WORD})?(\n|\r\n|\t|  | \n)[0-9]{{1,4}} {WORD}( St)?", fullmatch=True),  # addresses
    st.from_regex(r"[A-Za-z]{2,8}[ \t]{1,3}", fullmatch=True),  # trailing spaces and tabs
    st.sampled_from(["Zürich", "São Paulo", "Łódź", "東京", "naïve café", "null", "None", "N/A", "", " ", "\u0301"]),
    st.decimals(allow_nan=False, allow_infinity=False, places=2, min_value=-(10**6), max_value=10**6).map(str),
)
cells = st.one_of(texts, st.none(), st.integers(-(10**12), 10**12), st.floats(allow_nan=False, allow_infinity=False))


@st.composite
def results(draw: st.DrawFn) -> QueryResult:
    """A query result as SQLite hands it over: 1-3 columns, 0-4 rows of mixed values."""
    columns = draw(st.integers(min_value=1, max_value=3))
    n = draw(st.integers(min_value=0, max_value=4))
    rows = tuple(tuple(draw(cells) for _ in range(columns)) for _ in range(n))
    return QueryResult(tuple(f"c{i}" for i in range(columns)), rows)


def goal(answer: Any) -> Goal:
    return Goal(user=UserIntent(explicit="Which ones?"), gold=[], answer=answer, gold_answer=answer_text(answer))


def facts_right(g: Goal, reply: str) -> bool | None:
    """The answer-facts verdict on one goal: None where it has no checkable fact (not scored)."""
    facts = goal_facts(g)
    return None if not any(facts.values()) else not missing_facts(facts, reply)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(results())
@example(QueryResult(("address",), (("12 Main St\nApt 4",),)))
@example(QueryResult(("name", "city"), (("Ann  ", "Zürich\t"), (None, "3.50"))))
@example(QueryResult(("max(age)",), ((None,),)))
@example(QueryResult(("big",), ((1.5846806848142806e16,),)))
@example(QueryResult(("name",), ()))
def test_the_oracle_reply_is_right_and_a_refusal_never_is(result: QueryResult) -> None:
    answer = answer_value(result)
    g = goal(answer)
    assert g.gold_answer is not None
    seen = ReplyContext(said=fold("Which ones?"), results=(result.records(),))
    verdict = match_reply(answer, g.gold_answer, seen)
    assert verdict.correct, (g.gold_answer, verdict.errors)
    assert facts_right(g, g.gold_answer) is not False
    for refusal in REFUSALS:
        assert not match_reply(answer, refusal, seen).correct, refusal
        assert facts_right(g, refusal) is not True, refusal


async def test_the_null_agents_reply_is_one_of_the_refusals() -> None:
    """The refusals above include what the null agent actually says."""
    reply = await NullAgent(None).respond([], None)  # type: ignore[arg-type]
    assert reply in REFUSALS
