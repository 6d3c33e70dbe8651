"""What a styled user says, goal by goal: the request that opens a goal and the follow-ups that stay on it.

``GoalDialogue`` is the scripted user's whole policy and the LLM user's plan (which value to withhold, which to
change) and fallback. It is deterministic: the same task, styles, persona and seed give the same messages.

After the agent answers, the user stays on the goal while something is owed:
1. a withheld value (underspecified) is given — as the answer to the agent's question, or as an afterthought
   if the agent did not ask (it guessed, or did nothing);
2. a changed value (changes_mind) is corrected;
3. a question from the agent is answered from the persona's facts when it asks about one, else the user says it
   knows nothing more (once per goal; an impatient user says "just do it");
then it moves to the next goal, and after the last one ends the conversation.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from personas.persona import Persona
from personas.styles import (
    ValueSpan,
    asks_question,
    decoy,
    impatient,
    replace_value,
    terse,
    value_spans,
    verbose,
    withhold,
)
from sim.core import Task, UserAct, UserMessage


@dataclass
class GoalPlan:
    """One goal's wording and what the user holds back or will correct."""

    text: str
    """The request as first said (styled)."""
    withheld: ValueSpan | None = None
    change: tuple[ValueSpan, str] | None = None
    """(the real value's span, the value said first instead)."""


@dataclass
class GoalProgress:
    goal: int
    owed_value: ValueSpan | None
    owed_change: tuple[ValueSpan, str] | None
    nudged: bool = False
    turns: int = 1


class GoalDialogue:
    """The messages of one conversation, built from the task, the styles, the persona and the seed."""

    def __init__(
        self, task: Task, styles: tuple[str, ...], persona: Persona, seed: int, answers_questions: bool = True
    ) -> None:
        self.task = task
        self.styles = styles
        self.answers_questions = answers_questions
        """False: the plain benchmark user, one turn per goal whatever the agent asks (squall's user before styles,
        so runs made before them resume alike)."""
        self.persona = persona
        self.seed = seed
        self.plans = [self._plan(g) for g in range(len(task.goals))]
        self._choose_change()
        self.progress: GoalProgress | None = None

    # --- planning --------------------------------------------------------------------------------------------

    def _rng(self, *salt: object) -> random.Random:
        return random.Random(":".join(map(str, (self.seed, self.task.id, *salt))))

    def base_text(self, goal: int) -> str:
        """The goal in the rendering the styles ask for, before any value is held back or changed."""
        intent = self.task.goals[goal].user
        if "paraphrased" in self.styles and intent.paraphrases:
            return self._rng("paraphrase", goal).choice(intent.paraphrases)
        if "coreferential" in self.styles and goal > 0 and intent.coreferential:
            return intent.coreferential
        return intent.explicit

    def _plan(self, goal: int) -> GoalPlan:
        text = self.base_text(goal)
        plan = GoalPlan(text)
        if "underspecified" in self.styles:
            spans = value_spans(self.task.goals[goal], text)
            numbers = [s for s in spans if s.is_number]
            pool = numbers or spans
            if pool:
                plan.withheld = self._rng("withhold", goal).choice(pool)
        return plan

    def _choose_change(self) -> None:
        """One goal per conversation says a number wrong first (changes_mind), where a goal has one to spare."""
        if "changes_mind" not in self.styles:
            return
        options: list[tuple[int, ValueSpan, str]] = []
        for goal, plan in enumerate(self.plans):
            for span in value_spans(self.task.goals[goal], plan.text):
                wrong = decoy(span)
                if wrong is not None and (plan.withheld is None or span.start != plan.withheld.start):
                    options.append((goal, span, wrong))
        if options:
            goal, span, wrong = self._rng("change").choice(options)
            self.plans[goal].change = (span, wrong)

    # --- talking ---------------------------------------------------------------------------------------------

    def request(self, goal: int) -> UserMessage:
        """The message that opens ``goal``."""
        plan = self.plans[goal]
        text = plan.text
        edits: list[tuple[ValueSpan, str | None]] = []
        if plan.withheld is not None:
            edits.append((plan.withheld, None))
        if plan.change is not None:
            edits.append((plan.change[0], plan.change[1]))
        for span, said in sorted(edits, key=lambda e: e[0].start, reverse=True):  # later spans first: offsets hold
            text = withhold(text, span) if said is None else replace_value(text, span, said)
        self.progress = GoalProgress(goal, plan.withheld, plan.change)
        intent = self.task.goals[goal].user
        # What the task itself holds back (a benchmark's missing-parameter turn) is marked as the style's is, so the
        # clarification judge scores it; the goal that supplies it says so.
        style_withheld = [plan.withheld.param] if plan.withheld is not None else []
        act = UserAct(
            kind="request",
            styles=list(self.styles),
            withheld=[*style_withheld, *intent.withheld],
            gave=list(intent.gives),
        )
        return UserMessage(text=self._voice(text, goal), goal=goal, act=act)

    def _voice(self, text: str, goal: int) -> str:
        # Seeded only where a style draws from it: seeding costs more than the rest of a plain message.
        rng = self._rng("voice", goal) if "verbose" in self.styles or "impatient" in self.styles else None
        if "terse" in self.styles:
            shorter = terse(text)
            # Every value the goal's calls use must survive the cut, else the user says something else.
            kept = all(s.said.casefold() in shorter.casefold() for s in value_spans(self.task.goals[goal], text))
            text = shorter if kept else text
        if rng is not None and "verbose" in self.styles:
            text = verbose(text, self.persona.chatter, rng)
        if rng is not None and "impatient" in self.styles:
            text = impatient(text, rng)
        return text

    def follow_up(self, agent_message: str) -> UserMessage | None:
        """Another message on the current goal, or None when the user is done with it."""
        p = self.progress
        assert p is not None, "request() opens a goal first"
        hurry = "impatient" in self.styles
        asked = asks_question(agent_message)
        if p.owed_value is not None:
            span, p.owed_value = p.owed_value, None
            value = f"{span.said}{span.unit}"
            if asked:
                text = f"{value}. Hurry up, please." if hurry else f"The {span.words} should be {value}."
            else:
                text = f"Oh, I forgot to say: the {span.words} should be {value}."
            act = UserAct(kind="answer", styles=list(self.styles), gave=[span.param])
            return self._say(text, act)
        if p.owed_change is not None:
            (span, wrong), p.owed_change = p.owed_change, None
            text = f"Actually, I changed my mind: make it {span.said}{span.unit}, not {wrong}{span.unit}."
            act = UserAct(kind="change_mind", styles=list(self.styles), changed={span.param: wrong})
            return self._say(text, act)
        if asked and not p.nudged and self.answers_questions:
            p.nudged = True
            fact = self._fact_asked(agent_message)
            if fact is not None:
                return self._say(fact, UserAct(kind="answer", styles=list(self.styles)))
            text = (
                "No more questions, just do it."
                if hurry
                else "I don't know anything more than what I told you. Please go ahead with that."
            )
            return self._say(text, UserAct(kind="nudge", styles=list(self.styles)))
        return None

    def _say(self, text: str, act: UserAct) -> UserMessage:
        assert self.progress is not None
        self.progress.turns += 1
        return UserMessage(text=text, goal=self.progress.goal, act=act)

    def _fact_asked(self, agent_message: str) -> str | None:
        """The persona's answer when the agent asks about something it knows (its name, its city...)."""
        lowered = agent_message.casefold()
        for key, value in self.persona.facts.items():
            if re.search(rf"\b{re.escape(key.casefold())}\b", lowered):
                return f"My {key} is {value}."
        return None

    def next_message(self, agent_message: str) -> UserMessage | None:
        """The user's message after the agent's reply: stay on the goal, open the next, or end (None)."""
        more = self.follow_up(agent_message)
        if more is not None:
            return more
        assert self.progress is not None
        nxt = self.progress.goal + 1
        return self.request(nxt) if nxt < len(self.task.goals) else None
