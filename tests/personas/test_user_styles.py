"""Scripted users in styles: goals and turns apart in the trace, withheld values, changes of mind, personas,
user specs, and judges scoring per goal."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from judges.calls.arg_match import ArgMatcher
from judges.calls.core_api import judge_turns
from personas import ScriptedUser, parse_user_spec, parse_user_specs
from personas.persona import PersonaError, load_persona, persona_names
from personas.styles import asks_question, terse, value_spans
from sim.agents.baselines import NaiveAgent, OracleAgent
from sim.core import AgentFactory, AgentRuntime, EpisodeGold, EpisodeResult, Event, ToolCall, shared_agent
from sim.episode.env import EpisodeEnv, EpisodeSpec
from sim.episode.loop import run_episode
from sim.llm.gateway import Gateway
from worlds.registry import load_world

PACK = load_world("smart_home")
TASK = PACK.tasks()[0]  # light on at 50%, blue, 30%, off


async def play(spec: str, agent: AgentFactory = OracleAgent, setup: str = "cumulative", seed: int = 3) -> EpisodeResult:
    env = EpisodeEnv(PACK, agent, ScriptedUser(parse_user_spec(spec)), Gateway(), ("a", spec), setup=setup)  # type: ignore[arg-type]
    return await run_episode(EpisodeSpec(task=TASK, trial=0, seed=seed), env)


def said(result: EpisodeResult) -> list[Event]:
    return [ev for ev in result.events if ev.kind == "user_message"]


def correct(result: EpisodeResult) -> list[bool]:
    return [v.correct for v in judge_turns(result, ArgMatcher())]


async def test_the_plain_user_takes_one_turn_per_goal() -> None:
    result = await play("scripted")
    assert [(ev.turn, ev.goal) for ev in said(result)] == [(0, 0), (1, 1), (2, 2), (3, 3)]
    assert all(ev.goal is not None for ev in result.events)
    assert correct(result) == [True] * 4


@pytest.mark.parametrize("setup", ["cumulative", "isolated"])
async def test_an_underspecified_user_withholds_a_value_until_asked_and_the_oracle_asks(setup: str) -> None:
    result = await play("scripted:underspecified", setup=setup)
    first, answer = said(result)[:2]
    assert "50" not in (first.content or "") and first.user_act and first.user_act.withheld == ["level"]
    assert answer.goal == 0 and answer.turn == 1 and answer.user_act and answer.user_act.gave == ["level"]
    assert "50%" in (answer.content or "")
    assert result.turns_played > result.goals_played == 4
    assert correct(result) == [True] * 4  # judged per goal, over every turn the goal took


async def test_an_agent_that_guesses_is_told_the_value_anyway() -> None:
    result = await play("scripted:underspecified", NaiveAgent)
    answer = said(result)[1]
    assert answer.content == "Oh, I forgot to say: the level should be 50%."


async def test_a_change_of_mind_supersedes_the_calls_made_on_the_first_value() -> None:
    class TakesUserAtWord:
        """Does the goal with the number the user's latest message says, so it acts on the wrong one first."""

        name = "literal"

        def __init__(self, gold: EpisodeGold) -> None:
            self.gold = gold

        async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
            text = next(ev.content or "" for ev in reversed(history) if ev.kind == "user_message")
            gold = self.gold.current().gold
            for step, g in enumerate(gold, 1):
                args = dict(g.arguments)
                if "level" in args and "%" in text:
                    args["level"] = int(text.split("%")[0].split()[-1])
                await runtime.call(ToolCall(id="", name=g.name, arguments=args), step)
            return "Done."

    result = await play("scripted:changes_mind", TakesUserAtWord, seed=1)
    change = next(ev for ev in said(result) if ev.user_act and ev.user_act.kind == "change_mind")
    assert change.user_act is not None
    ((param, wrong),) = change.user_act.changed.items()
    assert param == "level" and f"{wrong}%" in (said(result)[change.turn - 1].content or "")
    assert correct(result) == [True] * 4  # the call on the first value is superseded, the corrected one counts

    class IgnoresCorrections(TakesUserAtWord):
        async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
            last = next(ev for ev in reversed(history) if ev.kind == "user_message")
            if last.user_act is not None and last.user_act.kind == "change_mind":
                return "Okay."
            return await super().respond(history, runtime)

    ignored = await play("scripted:changes_mind", IgnoresCorrections, seed=1)
    assert correct(ignored)[change.goal_index] is False


async def test_a_question_gets_one_nudge_then_the_user_moves_on() -> None:
    class AlwaysAsks:
        name = "asks"

        async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
            return "Which light do you mean?"

    result = await play("scripted:explicit", shared_agent(AlwaysAsks()))
    kinds = [(ev.goal, ev.user_act.kind if ev.user_act else None) for ev in said(result)]
    assert kinds[:3] == [(0, "request"), (0, "nudge"), (1, "request")]
    impatient = await play("scripted:impatient", shared_agent(AlwaysAsks()))
    assert said(impatient)[1].content == "No more questions, just do it."


async def test_a_question_about_a_persona_fact_is_answered_from_it() -> None:
    class AsksName:
        name = "asks"

        async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
            return "Sure — what is your name?"

    result = await play("scripted@chatty_retiree", shared_agent(AsksName()))
    assert said(result)[1].content == "My name is Margaret Ellis."
    assert said(result)[0].content.startswith(tuple(load_persona("chatty_retiree").chatter))  # verbose by default


async def test_styles_compose_and_the_same_seed_gives_the_same_messages() -> None:
    a = await play("scripted:coreferential+terse+impatient")
    b = await play("scripted:coreferential+terse+impatient")
    assert [ev.content for ev in said(a)] == [ev.content for ev in said(b)]
    assert said(a)[1].content is not None and "blue" in said(a)[1].content and "ceiling" not in said(a)[1].content
    paraphrased = await play("scripted:paraphrased")
    assert said(paraphrased)[0].content == TASK.goals[0].user.paraphrases[0]


def test_terse_keeps_every_value() -> None:
    assert terse("Could you please set the bedroom thermostat to 21 degrees, thanks!") == (
        "Set the bedroom thermostat to 21 degrees"
    )
    out = terse("Please alert me if Meta rises above 750 dollars.")
    assert "750" in out and "Meta" in out and "please" not in out.lower()


def test_value_spans_find_numbers_with_units_and_text_values() -> None:
    spans = value_spans(TASK.goals[0], TASK.goals[0].user.explicit)
    assert [(s.param, s.said, s.unit) for s in spans] == [("level", "50", "%")]
    blue = value_spans(TASK.goals[1], TASK.goals[1].user.explicit)
    assert [(s.param, s.said) for s in blue] == [("color", "blue")]


@pytest.mark.parametrize(
    ("reply", "asks"),
    [
        ("What brightness would you like?", True),
        ("Done. Is there anything else I can help you with?", False),
        ("I set it to 50%. Shall I also change the color?", True),
        ("Done.", False),
        ('Sam wrote at 08:40: "Fancy the cinema tonight?"', False),
    ],
)
def test_asks_question(reply: str, asks: bool) -> None:
    assert asks_question(reply) is asks


def test_user_specs_parse_and_bad_ones_say_why() -> None:
    assert parse_user_spec("scripted").label == "scripted"
    assert parse_user_spec("llm:terse+underspecified@busy_parent").label == "llm:terse+underspecified@busy_parent"
    assert [s.label for s in parse_user_specs("scripted:explicit, scripted:coreferential")] == [
        "scripted:explicit",
        "scripted:coreferential",
    ]
    for bad, why in [
        ("robot", "unknown kind"),
        ("scripted:shouty", "unknown user style"),
        ("scripted:terse+verbose", "contradict"),
        ("scripted@nobody", "unknown persona"),
        ("scripted,scripted", "named twice"),
    ]:
        with pytest.raises(ValueError, match=why):
            parse_user_specs(bad)


def test_shipped_personas_load_and_a_bad_file_names_the_field(tmp_path: Path) -> None:
    assert {"default", "busy_parent", "chatty_retiree"} <= set(persona_names())
    for name in persona_names():
        assert load_persona(name).description
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\ndescription: x\nstyles: [loud]\n")
    with pytest.raises(PersonaError, match=r"bad.yaml: field styles: .*unknown style"):
        load_persona(str(bad))
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: [unclosed\n")
    with pytest.raises(PersonaError, match=r"broken.yaml:\d+: not valid YAML"):
        load_persona(str(broken))


def test_personas_command_lists_and_validates(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from sim.cli.app import app

    listed = CliRunner().invoke(app, ["personas", "list"])
    assert listed.exit_code == 0 and "busy_parent" in listed.output and "underspecified" in listed.output
    bad = tmp_path / "p.yaml"
    bad.write_text("description: x\nfacts: [1, 2]\n")
    shown = CliRunner().invoke(app, ["personas", "show", str(bad)])
    assert shown.exit_code == 2 and "p.yaml: field facts" in shown.output


def test_terse_leaves_quoted_text_alone() -> None:
    said = 'Please text Chloe Dubois: "Thanks for yesterday, it was great." Thanks!'
    assert terse(said) == 'Text Chloe Dubois: "Thanks for yesterday, it was great."'


def test_two_parameters_with_one_value_take_different_places() -> None:
    from sim.core import Goal, GoldCall, UserIntent

    turn = Goal(
        user=UserIntent(explicit="Book a table for 5 people and show the forecast for the next 5 days."),
        gold=[GoldCall(name="book", arguments={"party_size": 5}), GoldCall(name="forecast", arguments={"days": 5})],
    )
    spans = value_spans(turn, turn.user.explicit)
    text = turn.user.explicit
    assert [(s.param, s.start) for s in spans] == [("party_size", text.index("5")), ("days", text.rindex("5"))]
    task = TASK.model_copy(update={"id": "two-fives", "goals": [turn]})
    from personas.dialogue import GoalDialogue

    for seed in range(6):
        text = GoalDialogue(task, ("underspecified", "changes_mind"), load_persona("default"), seed).request(0).text
        assert text.count(" I have in mind") == 1 and text.count("15") == 1, text


async def test_the_plain_user_never_stays_on_a_goal_but_a_styled_one_answers_once() -> None:
    class AlwaysAsks:
        name = "asks"

        async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
            return "Done. Should I also dim the other lights?"

    plain = await play("scripted", shared_agent(AlwaysAsks()))
    assert [ev.goal for ev in said(plain)] == [0, 1, 2, 3]
    styled = await play("scripted:explicit", shared_agent(AlwaysAsks()))
    assert [ev.goal for ev in said(styled)] == [0, 0, 1, 1, 2, 2, 3, 3]


async def test_a_goal_a_person_skips_is_not_played_rather_than_failed() -> None:
    from personas.human import HumanUser

    lines = iter(["/next", "Change the living room ceiling light's color to blue.", None])

    async def ask(prompt: str) -> str | None:
        return next(lines)

    env = EpisodeEnv(PACK, OracleAgent, HumanUser(ask, lambda text: None), Gateway(), ("oracle", "human"))
    result = await run_episode(EpisodeSpec(task=TASK, trial=0, seed=1), env)
    verdicts = judge_turns(result, ArgMatcher())
    assert result.goals_played == 2 and not result.played(0) and result.played(1)
    # Goal 2 was judged (the light was never switched on in goal 1, so the world refused the colour).
    assert verdicts[0].errors == ["turn:not_played"] and verdicts[1].errors == ["core:missing:set_color"]
