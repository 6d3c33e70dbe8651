"""The answer-facts judge: hand-labelled replies to gold answers, equivalent formats that must pass, and a question
goal whose lookup was called but whose reply is wrong."""

from __future__ import annotations

import pytest

from judges.answers.answer_facts import AnswerFacts, facts_of, missing_facts
from judges.calls.arg_match import ArgMatcher
from judges.calls.core_api import CoreApiAccuracy
from sim.core import EpisodeResult, Event, Goal, GoldCall, Task, ToolCall, ToolResult, UserIntent

GOLD = "Meta went from 603.44 on 2026-03-02 to 624.76 USD on 2026-03-13 (+3.53%)."


@pytest.mark.parametrize(
    ("reply", "missing"),
    [
        (GOLD, []),
        ("Meta rose from $603.44 (March 2) to $624.76 on 13 March 2026, up 3.53%.", []),
        ("META: 603.44 on Mar 2nd → 624.76 on Mar 13th, +3.5%.", []),  # rounded as stated
        ("Meta went from 603.44 on 2026-03-02 to 642.76 on 2026-03-13 (+3.53%).", ["number:624.76"]),
        ("Meta went from 603.44 on 2026-03-03 to 624.76 on 2026-03-13 (+3.53%).", ["date:2026-03-02"]),
        ("It went up 3.53% to 624.76 from 603.44 on March 2 to March 13.", ["name:meta"]),
    ],
)
def test_equivalent_formats_pass_and_wrong_facts_fail(reply: str, missing: list[str]) -> None:
    assert missing_facts(facts_of(GOLD, "meta"), reply) == missing


def test_times_emails_and_quotes() -> None:
    gold = 'Ben Walsh last wrote on 2026-03-11 at 14:00: "I can come and fix the boiler Tuesday morning."'
    facts = facts_of(gold, "")
    assert facts["time"] == [14 * 60] and facts["quote"] == ["i can come and fix the boiler tuesday morning."]
    good = "On March 11 at 2 pm Ben Walsh wrote: “I can come and fix the boiler Tuesday morning.”"
    assert missing_facts(facts, good) == []
    assert missing_facts(facts, "Ben Walsh wrote on March 11 at 2 pm that he can come on Tuesday.") == [
        "quote:i can come and fix the boiler tuesday morning."
    ]
    mail = facts_of("Tom Baker's email address is tom.baker@example.com.", "")
    assert missing_facts(mail, "It's TOM.BAKER@example.com") == [] and missing_facts(mail, "tom@example.com")


def question_episode(reply: str) -> EpisodeResult:
    turn = Goal(
        user=UserIntent(explicit="How much is the Kindle Paperwhite 16 GB, and is it in stock?"),
        gold=[GoldCall(name="get_product", arguments={"name": "Kindle Paperwhite 16 GB"})],
        gold_answer="The Kindle Paperwhite 16 GB costs £159.99 and is 8 in stock.",
    )
    task = Task(id="q", world="multidomain", goals=[turn])
    call = ToolCall(id="c0", name="get_product", arguments={"name": "Kindle Paperwhite 16 GB"})
    events = [
        Event(kind="user_message", turn=0, goal=0, content=turn.user.explicit),
        Event(kind="tool_call", turn=0, goal=0, call=call, read_only=True),
        Event(
            kind="tool_result",
            turn=0,
            goal=0,
            call=call,
            result=ToolResult(call_id="c0", status="success", content={"price": 159.99, "stock": 8}),
        ),
        Event(kind="agent_message", turn=0, goal=0, content=reply),
    ]
    return EpisodeResult(
        episode_id="q#0",
        task_id="q",
        trial=0,
        seed=0,
        world="multidomain",
        agent="a",
        user="u",
        task=task,
        tools=[],
        events=events,
        turns_played=1,
        goals_played=1,
    )


async def test_a_lookup_called_with_a_wrong_answer_passes_core_accuracy_but_not_answer_facts() -> None:
    wrong = question_episode("The Kindle Paperwhite 16 GB costs £149.99 and 8 are in stock.")
    right = question_episode("It's £159.99, and there are 8 in stock.")
    core = CoreApiAccuracy(ArgMatcher())
    assert (await core.score(wrong)).value == 1.0 and (await core.score(right)).value == 1.0
    judged_wrong, judged_right = await AnswerFacts().score(wrong), await AnswerFacts().score(right)
    assert judged_wrong.value == 0.0 and "goal0:answer:missing:number:159.99" in judged_wrong.errors
    assert judged_right.value == 1.0


async def test_goals_without_a_gold_answer_are_not_scored() -> None:
    episode = question_episode("whatever")
    plain = episode.task.goals[0].model_copy(update={"gold_answer": None})
    score = await AnswerFacts().score(
        episode.model_copy(update={"task": episode.task.model_copy(update={"goals": [plain]})})
    )
    assert score.value is None and score.per_goal == []


@pytest.mark.parametrize(
    ("answer", "gold_answer"), [([], "No results."), ([{"max(age)": None}], "max(age): None"), ([None], "None")]
)
async def test_an_empty_exact_answer_is_the_fact_that_nothing_matches(answer: object, gold_answer: str) -> None:
    """Facts of "No results." are none, so without this the goal went unscored; now a refusal fails it."""
    episode = question_episode("x")
    goal = episode.task.goals[0].model_copy(update={"answer": answer, "gold_answer": gold_answer})
    task = episode.task.model_copy(update={"goals": [goal]})

    async def judged(reply: str) -> float | None:
        events = [e.model_copy(update={"content": reply}) if e.kind == "agent_message" else e for e in episode.events]
        return (await AnswerFacts().score(episode.model_copy(update={"task": task, "events": events}))).value

    assert await judged(gold_answer) == 1.0  # the oracle's reply
    assert await judged("There is no such product.") == 1.0
    assert await judged("I'm sorry, I can't help with that.") == 0.0
    assert await judged("It costs £159.99.") == 0.0
