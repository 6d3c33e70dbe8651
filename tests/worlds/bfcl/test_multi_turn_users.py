"""miss_param's withheld turns through the user, the stressors and the clarification judge's markers."""

from __future__ import annotations

from personas.dialogue import GoalDialogue
from personas.persona import Persona
from sim.core import Goal, GoldCall, Task, UserIntent
from worlds.stressors.catalog import build_stressors
from worlds.stressors.types.missing import pick

ASK = Goal(user=UserIntent(explicit="Move one of the files to temp.", withheld=["source"]), gold=[])
GIVE = Goal(
    user=UserIntent(explicit="The file is notes.txt.", gives=["source"]),
    gold=[GoldCall(name="mv", arguments={"source": "notes.txt", "destination": "temp"})],
)
FIRST = Goal(
    user=UserIntent(explicit="Go to documents."), gold=[GoldCall(name="cd", arguments={"folder": "documents"})]
)
TASK = Task(id="t", world="w", goals=[FIRST, ASK, GIVE])


def test_the_plain_scripted_user_marks_what_the_task_withholds_and_gives() -> None:
    dialogue = GoalDialogue(TASK, (), Persona(name="p", description="a user"), seed=0, answers_questions=False)
    first, ask, give = dialogue.request(0), dialogue.request(1), dialogue.request(2)
    assert first.act.withheld == [] and first.act.gave == []
    assert ask.text == "Move one of the files to temp." and ask.act.withheld == ["source"]
    assert give.act.gave == ["source"] and give.act.withheld == []


def test_perturb_keeps_the_withheld_marks() -> None:
    (stressor,) = build_stressors(["perturb.polite_full"], seed=1, tool_names=["cd", "mv"])
    rewritten = stressor.on_task(TASK)
    assert rewritten.goals[1].user.withheld == ["source"] and rewritten.goals[2].user.gives == ["source"]


def test_missing_never_makes_a_withheld_goal_repeat_an_earlier_request() -> None:
    assert pick(TASK, "until_later") is None  # goal 0's next goal withholds: the right move there is to ask
