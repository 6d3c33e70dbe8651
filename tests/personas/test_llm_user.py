"""The LLM user, driven by scripted models (pydantic-ai FunctionModel through the real gateway): a normal
conversation, a premature end caught and retried, an assistant-like slip, a question answered from the persona's
facts, a question it cannot answer, and the scripted fallback when the model keeps slipping."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from personas import LLMUser, parse_user_spec
from sim.agents.baselines import OracleAgent
from sim.core import AgentFactory, AgentRuntime, EpisodeGold, EpisodeResult, Event, shared_agent
from sim.episode.env import EpisodeEnv, EpisodeLimits, EpisodeSpec
from sim.episode.loop import run_episode
from sim.llm.gateway import Gateway
from sim.llm.transports.pydantic_ai import PydanticAITransport
from worlds.registry import load_world

PACK = load_world("smart_home")
TASK = PACK.tasks()[0]  # four goals: light on at 50%, blue, 30%, off
MODEL = "scripted-user"


@dataclass
class Seen:
    """What the user model was shown at one request."""

    system: str
    said: list[tuple[str, str]]  # (role as the model sees it, text)
    tools: list[str]

    @property
    def current_goal(self) -> str:
        line = next(x for x in self.system.splitlines() if "[CURRENT]" in x)
        return line.split("[CURRENT]", 1)[1].strip()

    @property
    def last_from_agent(self) -> str:
        return next((t for role, t in reversed(self.said) if role == "user" and not t.startswith("(")), "")


Policy = Callable[[Seen], str | tuple[str, str]]


@dataclass
class UserModel:
    """A scripted user model: ``policy`` sees the prompt and answers with text or ("tool", name)."""

    policy: Policy
    seen: list[Seen] = field(default_factory=list)

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        system, said = "", []
        for message in messages:
            for part in message.parts:
                if isinstance(part, SystemPromptPart):
                    system += part.content
                elif isinstance(part, UserPromptPart):
                    said.append(("user", str(part.content)))
                elif isinstance(part, TextPart):
                    said.append(("assistant", part.content))
        seen = Seen(system, said, [t.name for t in info.function_tools])
        self.seen.append(seen)
        answer = self.policy(seen)
        if isinstance(answer, tuple):
            return ModelResponse(parts=[ToolCallPart(answer[1], {}, tool_call_id="u1")])
        return ModelResponse(parts=[TextPart(answer)])


def cooperative(seen: Seen) -> str | tuple[str, str]:
    """A good simulator: says the current goal, moves on once the agent reports it done, ends after the last."""
    if not seen.tools:  # opening a goal
        return seen.current_goal
    if "[later]" in seen.system:
        return ("tool", "next_goal")
    return ("tool", "end_conversation")


async def play(policy: Policy, agent: AgentFactory = OracleAgent, spec: str = "llm") -> tuple[EpisodeResult, UserModel]:
    model = UserModel(policy)
    gateway = Gateway()
    gateway.register(MODEL, PydanticAITransport(FunctionModel(model)))
    user = LLMUser(parse_user_spec(spec), MODEL)
    env = EpisodeEnv(PACK, agent, user, gateway, ("oracle", spec), limits=EpisodeLimits(max_turns=12))
    result = await run_episode(EpisodeSpec(task=TASK, trial=0, seed=7), env)
    await gateway.aclose()
    return result, model


def user_messages(result: EpisodeResult) -> list[Event]:
    return [ev for ev in result.events if ev.kind == "user_message"]


def user_faults(result: EpisodeResult) -> list[str]:
    return [ev.code or "" for ev in result.events if ev.kind == "error" and ev.fault == "user"]


async def test_a_normal_conversation_walks_every_goal_and_ends_with_the_tool() -> None:
    result, model = await play(cooperative)
    said = user_messages(result)
    assert [ev.content for ev in said] == [t.user.explicit for t in TASK.goals]
    assert [ev.goal for ev in said] == [0, 1, 2, 3]
    assert result.termination == "completed" and result.goals_played == 4 and user_faults(result) == []
    assert result.usage_by_role["user"].requests == len(model.seen)
    assert "agent" not in result.usage_by_role  # the oracle calls no model; user requests are never agent steps
    # The agent's replies reach the model as the other side of the conversation.
    assert any(text == "Done." for role, text in model.seen[-1].said if role == "user")


async def test_a_premature_end_is_caught_recorded_and_retried() -> None:
    ended_once: list[bool] = []

    def hasty(seen: Seen) -> str | tuple[str, str]:
        if seen.tools and not ended_once:  # after the first reply: "thanks, bye" with three goals left
            ended_once.append(True)
            return ("tool", "end_conversation")
        return cooperative(seen)

    result, model = await play(hasty)
    assert user_faults(result) == ["user:premature_end"]
    assert result.goals_played == 4  # the conversation went on to every goal
    rejected = model.seen[2]  # the retry is told why
    assert any("rejected" in text and "premature end" in text for _, text in rejected.said)


async def test_ending_right_after_the_agent_only_offered_is_premature() -> None:
    class Offers:
        name = "offers"

        async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
            return "I can switch it on for you. Shall I go ahead?"

    def agrees_and_leaves(seen: Seen) -> str | tuple[str, str]:
        if not seen.tools:
            return seen.current_goal
        if any("rejected" in t for _, t in seen.said[-1:]):
            return "Yes, please go ahead."
        return ("tool", "end_conversation")

    one_goal = TASK.model_copy(update={"goals": TASK.goals[-1:]})
    model = UserModel(agrees_and_leaves)
    gateway = Gateway()
    gateway.register(MODEL, PydanticAITransport(FunctionModel(model)))
    user = LLMUser(parse_user_spec("llm"), MODEL)
    env = EpisodeEnv(PACK, shared_agent(Offers()), user, gateway, ("offers", "llm"), limits=EpisodeLimits(max_turns=2))
    result = await run_episode(EpisodeSpec(task=one_goal, trial=0, seed=7), env)
    await gateway.aclose()
    faults = [ev.content or "" for ev in result.events if ev.kind == "error" and ev.code == "user:premature_end"]
    assert faults and "only offered" in faults[0]
    assert [ev.content for ev in user_messages(result)][1] == "Yes, please go ahead."


async def test_an_assistant_like_message_is_caught_and_retried() -> None:
    slipped: list[bool] = []

    def confused(seen: Seen) -> str | tuple[str, str]:
        if not slipped:
            slipped.append(True)
            return "Sure, I've turned on the living room ceiling light for you."
        return cooperative(seen)

    result, _ = await play(confused)
    assert user_faults(result) == ["user:assistant_like"]
    assert user_messages(result)[0].content == TASK.goals[0].user.explicit
    faults = [ev for ev in result.events if ev.kind == "error"]
    assert all(ev.fault == "user" for ev in faults)  # never filed as the agent's


class AsksFirst:
    """Asks the user one question before doing each goal the oracle's way."""

    name = "asks"

    def __init__(self, question: str, gold: EpisodeGold) -> None:
        self.question = question
        self.oracle = OracleAgent(gold)

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        if runtime.turn == 0:
            return self.question
        return await self.oracle.respond(history, runtime)


def answers_from_facts(invent_first: bool) -> Policy:
    """Answers a question from the facts in its prompt; optionally first makes a number up (a slip)."""
    invented: list[bool] = []

    def policy(seen: Seen) -> str | tuple[str, str]:
        question = seen.last_from_agent
        answering = seen.tools and question.endswith("?") and seen.said[-1][1] == question
        if answering or "rejected" in seen.said[-1][1]:
            if invent_first and not invented:
                invented.append(True)
                return "It's 48213."
            facts = dict(re.findall(r"(\w[\w ]*): ([^;.]+)", seen.system.split("What you know about yourself:")[1]))
            key = next((k for k in facts if k in question.lower()), None)
            return f"My {key} is {facts[key]}." if key else "Sorry, I don't know that."
        return cooperative(seen)

    return policy


async def test_a_clarifying_question_is_answered_from_the_persona_facts() -> None:
    asks_city = partial(AsksFirst, "Which city are you in?")
    result, model = await play(answers_from_facts(False), asks_city, "llm@busy_parent")
    said = user_messages(result)
    assert said[1].content == "My city is Lisbon." and said[1].goal == 0
    assert said[1].user_act is not None and said[1].user_act.kind == "answer"
    assert "Sam Rivera" in model.seen[0].system and "busy parent" in model.seen[0].system
    assert user_faults(result) == [] and result.goals_played == 4


async def test_a_question_it_cannot_answer_gets_no_invented_fact() -> None:
    result, _ = await play(answers_from_facts(True), partial(AsksFirst, "What is your account number?"))
    said = user_messages(result)
    assert said[1].content == "Sorry, I don't know that."
    faults = [ev for ev in result.events if ev.kind == "error"]
    assert [ev.code for ev in faults] == ["user:invented_fact"] and "48213" in (faults[0].content or "")


async def test_a_model_that_keeps_slipping_gives_way_to_the_scripted_wording() -> None:
    result, _ = await play(lambda seen: "How can I help you today?")
    said = user_messages(result)
    assert said[0].content == TASK.goals[0].user.explicit  # the scripted dialogue's wording
    codes = user_faults(result)
    assert codes[:4] == ["user:assistant_like"] * 3 + ["user:slip_unrecovered"]
    assert result.termination == "completed" and result.goals_played == 4


async def test_same_seed_same_messages_and_the_requests_carry_the_seed() -> None:
    first, m1 = await play(cooperative)
    second, m2 = await play(cooperative)
    assert [ev.content for ev in user_messages(first)] == [ev.content for ev in user_messages(second)]
    assert [s.system for s in m1.seen] == [s.system for s in m2.seen]


async def test_an_underspecified_llm_user_is_told_to_hold_the_value_back_and_caught_if_it_does_not() -> None:
    def blurts(seen: Seen) -> str | tuple[str, str]:
        if not seen.tools and "Do not say the level (50%)" in seen.system and "rejected" not in seen.said[-1][1]:
            return seen.current_goal  # says "50% brightness" anyway
        if not seen.tools:
            return re.sub(r"(?:to )?\d+% brightness", "to a nice level", seen.current_goal)
        return cooperative(seen)

    result, _ = await play(blurts, spec="llm:underspecified")
    assert "user:gave_withheld" in user_faults(result)
    first = user_messages(result)[0]
    assert first.user_act is not None and first.user_act.withheld == ["level"] and "50" not in (first.content or "")


async def test_an_off_goal_opening_is_caught_and_text_markers_move_on_without_tools() -> None:
    wandered: list[bool] = []

    def text_only(seen: Seen) -> str | tuple[str, str]:
        if not seen.tools:
            if not wandered:
                wandered.append(True)
                return "Hey Alex, great to meet you! I have been thinking about your project."
            return seen.current_goal
        return "NEXT_GOAL" if "[later]" in seen.system else "END_CONVERSATION"

    result, _ = await play(text_only)
    assert user_faults(result) == ["user:off_goal"]
    assert result.goals_played == 4 and [ev.goal for ev in user_messages(result)] == [0, 1, 2, 3]


async def test_a_user_that_never_moves_on_is_moved_on_after_four_turns_of_a_goal() -> None:
    def chatty(seen: Seen) -> str | tuple[str, str]:
        if not seen.tools:
            return seen.current_goal
        return f"Thanks! Anything else about the living room ceiling light? ({'really ' * len(seen.said)}curious)"

    result, model = await play(chatty)
    goals = [ev.goal for ev in user_messages(result)]
    assert goals == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2][: len(goals)] and result.termination == "turn_limit"
    assert user_faults(result).count("user:goal_turn_limit") == 2
    assert max(len(s.said) for s in model.seen) <= 13  # bounded history: 12 messages and a note


async def test_echoing_the_instructions_and_repeating_itself_are_slips() -> None:
    looped: list[str] = []

    def echo_then_loop(seen: Seen) -> str | tuple[str, str]:
        if not seen.tools:
            if not looped:
                looped.append("echo")
                return "You are role-playing a USER who talks to an AI assistant."
            return seen.current_goal
        if len(looped) == 1:
            looped.append("repeat")
            return next(text for role, text in reversed(seen.said) if role == "assistant")
        return cooperative(seen)

    result, _ = await play(echo_then_loop)
    assert user_faults(result) == ["user:prompt_echo", "user:repeated"]
    assert result.goals_played == 4


async def test_slips_before_the_end_are_recorded() -> None:
    slipped: list[bool] = []

    def slips_then_ends(seen: Seen) -> str | tuple[str, str]:
        if seen.tools and "[later]" not in seen.system and not slipped:
            slipped.append(True)
            return "Sure, I've turned it off for you."
        return cooperative(seen)

    result, _ = await play(slips_then_ends)
    assert user_faults(result) == ["user:assistant_like"] and result.goals_played == 4
    assert result.termination == "completed"
