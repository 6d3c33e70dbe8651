"""A model plays the user: a persona pursuing the task's goals in its styles, through the gateway (role ``user``).

Each turn the model sees the persona, the facts it may use, every goal (the current one marked), the style's
instructions and the conversation with roles flipped (its own messages are ``assistant``). It answers with the
user's next message, or calls one of two tools: ``next_goal`` (the agent has really done the current goal) or
``end_conversation`` (every goal has). What it writes is checked (``personas.slips``) before the agent sees it; a
slip is sent back with the reason and retried, and recorded as a user fault. When the retries run out the
scripted dialogue speaks instead (``user:slip_unrecovered``), so a weak simulator costs fidelity, not episodes.

In a world that gives the user tools (dual control: ``UserContext.tools``), those are native tools of its request
too: what it calls runs on the user's side, is recorded as the user's act, and its answer is shown to it before
it writes its message.

Which value an underspecified user holds back, and which number a user who changes its mind says wrong first,
are planned by the scripted dialogue from the task (same seed, same plan), so the judges know them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from personas.dialogue import GoalDialogue
from personas.persona import Persona
from personas.slips import assistant_like, echoes_prompt, invented_numbers, off_goal, only_offered
from personas.spec import UserSpec
from personas.styles import ValueSpan, asks_question, value_spans
from sim.core import (
    ChatMessage,
    LLMHandle,
    ModelRequest,
    Task,
    ToolCall,
    ToolSpec,
    UserAct,
    UserContext,
    UserMessage,
    UserTools,
    UserView,
)

NEXT_GOAL = ToolSpec(
    name="next_goal",
    description="The assistant has actually done your current goal (not just offered or agreed to): move on.",
    parameters={"type": "object", "properties": {}},
)
END_CONVERSATION = ToolSpec(
    name="end_conversation",
    description="Every one of your goals has actually been done: end the conversation.",
    parameters={"type": "object", "properties": {}},
)

STYLE_HINTS = {
    "explicit": "Name every thing you refer to in full.",
    "coreferential": "Refer back to things from earlier in the conversation ('it', 'that one') instead of naming "
    "them again, where that is clear.",
    "paraphrased": "Use your own words rather than the goal's wording.",
    "terse": "Be brief: a few words, no greetings or thanks.",
    "verbose": "Be chatty: add a little friendly small talk around your request.",
    "underspecified": "Leave out details until the assistant asks for them.",
    "impatient": "You are in a hurry and it shows; you do not like being asked questions.",
    "changes_mind": "You sometimes correct a number you said.",
}


TEXT_MARKERS = {"NEXT_GOAL": NEXT_GOAL.name, "END_CONVERSATION": END_CONVERSATION.name}
"""For models without native tool calling: a message that is (or ends with) one of these is that tool call."""
HISTORY_MESSAGES = 12
"""The conversation the model is shown: its latest messages (the goals are in the system prompt), so a long
conversation never outgrows a small model's context."""
MESSAGE_CHARS = 800
MAX_TOOL_ROUNDS = 8
"""Dual control: model responses in a row that call the user's own tools before it must say something."""
MAX_TURNS_PER_GOAL = 4
"""After this many agent replies on one goal without the model moving on, the user moves on (a fault: the
simulator did not decide)."""


@dataclass
class _Draft:
    text: str | None
    tool: str | None


class LLMUser:
    """The persona played by ``model``; ``max_retries`` slips per message before the scripted fallback."""

    def __init__(
        self,
        spec: UserSpec,
        model: str,
        temperature: float | None = 0.7,
        max_tokens: int = 200,
        max_retries: int = 2,
    ) -> None:
        self.spec = spec
        self.name = spec.label
        self.model = model
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.max_retries = max_retries
        self._task: Task | None = None
        self._llm: LLMHandle | None = None
        self._seed = 0
        self._persona: Persona | None = None
        self._dialogue: GoalDialogue | None = None
        self._said: list[tuple[str, str]] = []  # (role from the simulator's side, text)
        self._goal = 0
        self._requests = 0
        self._tools: UserTools | None = None

    # --- the User protocol --------------------------------------------------------------------------------------

    async def open(self, task: Task, context: UserContext) -> UserMessage:
        if context.llm is None:
            raise ValueError("the LLM user needs the episode's gateway handle")
        self._task, self._llm, self._seed, self._tools = task, context.llm, context.seed, context.tools
        self._persona = self.spec.persona_for(task.persona)
        self._dialogue = GoalDialogue(task, self.spec.styles_for(self._persona), self._persona, context.seed)
        self._dialogue.request(0)  # opens goal 0's plan; the model words it
        return await self._open_goal(0, [])

    async def reply(self, view: UserView) -> UserMessage | None:
        assert self._dialogue is not None and self._task is not None, "open() must be called first"
        self._said.append(("user", view.agent_message))
        slips: list[tuple[str, str]] = []
        progress = self._dialogue.progress
        if progress is not None and progress.turns >= MAX_TURNS_PER_GOAL:
            slips.append(("user:goal_turn_limit", f"goal {self._goal}: {progress.turns} turns without moving on"))
            if self._goal + 1 >= len(self._task.goals):
                return UserMessage(text="", goal=self._goal, slips=slips, ends=True)
            self._dialogue.request(self._goal + 1)
            return await self._open_goal(self._goal + 1, slips)
        for attempt in range(self.max_retries + 1):
            draft = await self._ask(attempt, slips)
            problem = self._check_follow_up(draft, view.agent_message)
            if problem is None:
                break
            slips.append(problem)
        else:
            return self._fallback(view.agent_message, slips)
        if draft.tool is None:
            assert draft.text is not None
            if progress is not None:
                progress.turns += 1
            return self._send(draft.text, self._follow_up_act(draft.text, view.agent_message), slips)
        if draft.tool == END_CONVERSATION.name or self._goal + 1 >= len(self._task.goals):
            # Ends; slips caught on the way are still recorded.
            return UserMessage(text="", goal=self._goal, slips=slips, ends=True) if slips else None
        self._dialogue.request(self._goal + 1)
        return await self._open_goal(self._goal + 1, slips)

    # --- one goal's opening message -----------------------------------------------------------------------------

    async def _open_goal(self, goal: int, slips: list[tuple[str, str]]) -> UserMessage:
        assert self._dialogue is not None
        self._goal = goal
        plan = self._dialogue.plans[goal]
        for attempt in range(self.max_retries + 1):
            draft = await self._ask(attempt, slips, opening=True)
            problem = self._check_text(draft, opening=True)
            if problem is None and draft.text is not None:
                withheld = [plan.withheld.param] if plan.withheld is not None else []
                if plan.change is not None and plan.change[1] not in draft.text:
                    self._progress_drop_change()  # it said the right value at once: nothing to correct
                intent = self._dialogue.task.goals[goal].user  # what the task holds back itself (GoalDialogue)
                act = UserAct(
                    kind="request",
                    styles=list(self._styles),
                    withheld=[*withheld, *intent.withheld],
                    gave=list(intent.gives),
                )
                return self._send(draft.text, act, slips)
            slips.append(problem or ("user:empty_message", "no message"))
        slips.append(("user:slip_unrecovered", f"goal {goal}: scripted wording used"))
        message = self._dialogue.request(goal)
        self._said.append(("assistant", message.text))
        return message.model_copy(update={"slips": slips})

    # --- checks --------------------------------------------------------------------------------------------------

    def _check_text(self, draft: _Draft, opening: bool = False) -> tuple[str, str] | None:
        if draft.tool is not None:
            return ("user:premature_goal", f"called {draft.tool} before saying what it wants") if opening else None
        text = (draft.text or "").strip()
        if not text:
            return ("user:empty_message", "no message")
        if assistant_like(text):
            return ("user:assistant_like", text[:200])
        if echoes_prompt(text, self._system(opening), self._goal_texts()):
            return ("user:prompt_echo", text[:200])
        if self._said and any(who == "assistant" and said == text for who, said in self._said[-2:]):
            return ("user:repeated", text[:200])
        invented = invented_numbers(text, self._known_texts())
        if invented:
            return ("user:invented_fact", f"numbers never given: {', '.join(invented)}")
        owed = self._owed_value()
        if opening and owed is not None and owed.said in text:
            return ("user:gave_withheld", f"said the {owed.words} ({owed.said}) it was to hold back")
        if opening and self._off_goal(text):
            return ("user:off_goal", text[:200])
        return None

    def _off_goal(self, text: str) -> bool:
        assert self._task is not None and self._dialogue is not None
        turn = self._task.goals[self._goal]
        plan = self._dialogue.plans[self._goal]
        values = [s.said for s in value_spans(turn, plan.text) if plan.withheld is None or s != plan.withheld]
        if turn.user.refers_to:
            values.append(turn.user.refers_to)
        return off_goal(text, plan.text, values)

    def _check_follow_up(self, draft: _Draft, agent_message: str) -> tuple[str, str] | None:
        assert self._task is not None
        if draft.tool is None:
            return self._check_text(draft)
        owes = self._owed_value() is not None or self._owed_change() is not None
        if draft.tool == END_CONVERSATION.name and self._goal + 1 < len(self._task.goals):
            return ("user:premature_end", f"ended at goal {self._goal + 1} of {len(self._task.goals)}")
        if owes:
            return ("user:premature_goal", "moved on while still owing the goal a value or a correction")
        if only_offered(agent_message):
            return ("user:premature_end", "the assistant only offered or asked; nothing was done yet")
        return None

    # --- the request ---------------------------------------------------------------------------------------------

    async def _ask(self, attempt: int, slips: list[tuple[str, str]], opening: bool = False) -> _Draft:
        assert self._llm is not None
        self._requests += 1
        messages = [ChatMessage(role="system", content=self._system(opening))]
        messages += [
            ChatMessage(role="assistant" if who == "assistant" else "user", content=t[:MESSAGE_CHARS])
            for who, t in self._said[-HISTORY_MESSAGES:]
        ]  # a "device" note (its own tools' answers, dual control) is shown as a user-side note
        if not self._said or self._said[-1][0] == "assistant":
            messages.append(ChatMessage(role="user", content="(The assistant is waiting for your message.)"))
        if attempt and slips:
            code, detail = slips[-1]
            messages.append(
                ChatMessage(
                    role="user",
                    content=f"(Your last answer was rejected — {code.split(':', 1)[1].replace('_', ' ')}: {detail}. "
                    "Answer again, as the user.)",
                )
            )
        own = self._tools.specs if self._tools is not None else ()
        for _ in range(MAX_TOOL_ROUNDS + 1):
            request = ModelRequest(
                role="user",
                model=self.model,
                messages=tuple(messages),
                tools=own if opening else (*own, NEXT_GOAL, END_CONVERSATION),
                max_tokens=self.max_tokens,
                temperature=self.temperature,
                seed=self._seed + self._requests,
            )
            response = await self._llm.complete(request)
            acts = [c for c in response.tool_calls if c.name not in (NEXT_GOAL.name, END_CONVERSATION.name)]
            if not acts or self._tools is None:
                break
            messages += await self._act(response.tool_calls)  # its own tools: run them, show it what they said
        control = [c.name for c in response.tool_calls if c.name in (NEXT_GOAL.name, END_CONVERSATION.name)]
        if control or (response.tool_calls and self._tools is None):
            return _Draft(text=None, tool=(control or [response.tool_calls[0].name])[0])
        text = response.text.strip()
        last_line = text.splitlines()[-1].strip().strip(".!").upper() if text else ""
        if not opening and last_line in TEXT_MARKERS:
            return _Draft(text=None, tool=TEXT_MARKERS[last_line])
        return _Draft(text=text, tool=None)

    async def _act(self, calls: tuple[ToolCall, ...]) -> list[ChatMessage]:
        """Dual control: the model called its own tools; each runs on the user's side (recorded as the user's act)
        and its answer goes back to the model, as a native tool exchange, and into what it remembers."""
        assert self._tools is not None
        exchange = [ChatMessage(role="assistant", content="", tool_calls=calls)]
        for call in calls:
            result = await self._tools.call(call)
            shown = result.content if isinstance(result.content, str) else json.dumps(result.content, default=str)
            shown = shown[:MESSAGE_CHARS]
            exchange.append(ChatMessage(role="tool", content=shown, tool_call_id=call.id, name=call.name))
            self._said.append(("device", f"(You used {call.name} on your side; it answered: {shown})"))
        return exchange

    def _system(self, opening: bool) -> str:
        assert self._task is not None and self._persona is not None and self._dialogue is not None
        goals = []
        for i, turn in enumerate(self._task.goals):
            mark = "done" if i < self._goal else ("CURRENT" if i == self._goal else "later")
            goals.append(f"{i + 1}. [{mark}] {turn.user.explicit}")
        facts = "; ".join(f"{k}: {v}" for k, v in self._persona.facts.items()) or "nothing beyond your goals"
        styles = " ".join(STYLE_HINTS[s] for s in self._styles)
        lines = [
            "You are role-playing a USER who talks to an AI assistant. You are never the assistant: you ask, answer "
            "its questions and react; you do not perform actions or report results.",
            f"Who you are: {self._persona.description}",
            f"What you know about yourself: {facts}.",
            "Your goals, one at a time, in order:",
            *goals,
            "Say the current goal like this (keep every name and number exactly): "
            + self._dialogue.plans[self._goal].text,
            f"Style: {styles}",
            "Rules: write only your next message, in the first person, one to three sentences. Answer questions "
            "only from your goals and the facts above; if you do not know something, say you don't know — never "
            "invent names, numbers or details.",
        ]
        if self._task.user_scenario:  # a benchmark's own brief (τ²'s scenario): played as written
            lines += [
                "Your scenario, written for you by the benchmark (it is everything you know and want; keep to its "
                "instructions, and do not reveal what it says you do not know):",
                self._task.user_scenario,
            ]
        owed, change = self._owed_value(), self._owed_change()
        if owed is not None and opening:
            lines.append(f"Do not say the {owed.words} ({owed.said}{owed.unit}) yet; give it only when asked.")
        elif owed is not None:
            lines.append(
                f"If the assistant asks, or has not asked yet, tell it the {owed.words}: {owed.said}{owed.unit}."
            )
        if change is not None and opening:
            lines.append(
                f"In this message say {change[1]}{change[0].unit} instead of {change[0].said}{change[0].unit}."
            )
        elif change is not None:
            lines.append(f"Now say you changed your mind: you want {change[0].said}{change[0].unit}, not {change[1]}.")
        if not opening:
            lines.append(
                "When the assistant has actually done the current goal (not just offered, asked or agreed), call "
                "next_goal. Call end_conversation only once every goal has been done. (Without tools: reply with "
                "just NEXT_GOAL or END_CONVERSATION.)"
            )
        return "\n".join(lines)

    # --- bookkeeping ---------------------------------------------------------------------------------------------

    @property
    def _styles(self) -> tuple[str, ...]:
        assert self._dialogue is not None
        return self._dialogue.styles

    def _owed_value(self) -> ValueSpan | None:
        p = self._dialogue.progress if self._dialogue is not None else None
        return p.owed_value if p is not None else None

    def _owed_change(self) -> tuple[ValueSpan, str] | None:
        p = self._dialogue.progress if self._dialogue is not None else None
        return p.owed_change if p is not None else None

    def _progress_drop_change(self) -> None:
        if self._dialogue is not None and self._dialogue.progress is not None:
            self._dialogue.progress.owed_change = None

    def _goal_texts(self) -> list[str]:
        assert self._task is not None and self._dialogue is not None
        texts = [plan.text for plan in self._dialogue.plans]
        for turn in self._task.goals:
            texts += [turn.user.explicit, turn.user.coreferential or "", *turn.user.paraphrases]
        return texts

    def _known_texts(self) -> list[str]:
        assert self._persona is not None
        texts = [t for _, t in self._said] + self._goal_texts() + list(self._persona.facts.values())
        if self._task is not None and self._task.user_scenario:
            texts.append(self._task.user_scenario)
        change = self._owed_change()
        if change is not None:
            texts.append(change[1])
        return texts

    def _follow_up_act(self, text: str, agent_message: str) -> UserAct:
        assert self._dialogue is not None and self._dialogue.progress is not None
        progress = self._dialogue.progress
        owed, change = progress.owed_value, progress.owed_change
        if owed is not None and owed.said in text:
            progress.owed_value = None
            return UserAct(kind="answer", styles=list(self._styles), gave=[owed.param])
        if change is not None and change[0].said in text:
            progress.owed_change = None
            return UserAct(kind="change_mind", styles=list(self._styles), changed={change[0].param: change[1]})
        return UserAct(kind="answer" if asks_question(agent_message) else "nudge", styles=list(self._styles))

    def _send(self, text: str, act: UserAct, slips: list[tuple[str, str]]) -> UserMessage:
        self._said.append(("assistant", text))
        return UserMessage(text=text, goal=self._goal, act=act, slips=slips)

    def _fallback(self, agent_message: str, slips: list[tuple[str, str]]) -> UserMessage | None:
        """The scripted dialogue's next message when the model keeps slipping."""
        assert self._dialogue is not None
        slips.append(("user:slip_unrecovered", f"goal {self._goal}: scripted follow-up used"))
        message = self._dialogue.next_message(agent_message)
        if message is None:  # the scripted dialogue is done too: end, keeping the slips on record
            return UserMessage(text="", goal=self._goal, slips=slips, ends=True)
        self._goal = message.goal
        self._said.append(("assistant", message.text))
        return message.model_copy(update={"slips": slips})
