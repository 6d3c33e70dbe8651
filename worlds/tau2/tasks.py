"""τ² tasks as squall tasks: one goal per τ² task, its gold the task's expected actions.

- The user: ``Task.user_scenario`` is τ²'s whole scenario (persona, reason for call, known and unknown info,
  instructions), which an LLM user plays; the goal's ``explicit`` wording, which a scripted user speaks, is the reason
  for call and the known info, in the first person.
- The gold: ``evaluation_criteria.actions`` in order, every one ``core``; the user's own (telecom's ``requestor:
  user``) are the goal's ``user_gold``, placed among the agent's (τ²'s ACTION check asks for the lookups too);
  the goal's ``gold_answer`` is the information the agent must say (``communicate_info``), which the oracle says.
- A task without gold actions or information to give is a ``decline`` goal: the user asks for what the policy forbids
  (a refund it does not allow), and a good agent says no.
- The verdict: ``Task.evaluation`` carries τ²'s evaluation criteria as written, with the reward basis made explicit
  (τ²'s default, DB and COMMUNICATE, where a task names none), for the ``tau2_reward`` judge.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from sim.core import Goal, GoldCall, Task, UserGoldCall, UserIntent

DEFAULT_REWARD_BASIS = ("DB", "COMMUNICATE")
"""τ²'s reward basis for a task that names none."""
TAG = "tau2"

_FIRST_PERSON = (
    (r"\bYou are\b", "I am"),
    (r"\byou are\b", "I am"),
    (r"\bYou were\b", "I was"),
    (r"\byou were\b", "I was"),
    (r"\bYou have\b", "I have"),
    (r"\byou have\b", "I have"),
    (r"\bYour\b", "My"),
    (r"\byour\b", "my"),
    (r"\byourself\b", "myself"),
    (r"\bYou\b", "I"),
    (r"\byou\b", "me"),
)


def first_person(text: str) -> str:
    """τ²'s second-person scenario lines as the user would say them ('You are Emma Kim.' -> 'I am Emma Kim.'):
    a plain rewrite for the scripted user, which has no model to word it."""
    for pattern, replacement in _FIRST_PERSON:
        text = re.sub(pattern, replacement, text)
    return text


def scenario_text(scenario: Mapping[str, Any]) -> str:
    """The whole user scenario as one brief, section by section."""
    lines: list[str] = []
    if scenario.get("persona"):
        lines += ["Persona:", str(scenario["persona"]).strip()]
    instructions = scenario.get("instructions")
    if isinstance(instructions, str):
        lines += ["Instructions:", instructions.strip()]
        return "\n".join(lines)
    assert isinstance(instructions, Mapping)
    for key, title in (
        ("domain", "Domain"),
        ("reason_for_call", "Reason for call"),
        ("known_info", "Known info"),
        ("unknown_info", "Unknown info"),
        ("task_instructions", "Task instructions"),
    ):
        if instructions.get(key):
            lines += [f"{title}:", str(instructions[key]).strip()]
    return "\n".join(lines)


def opening(scenario: Mapping[str, Any]) -> str:
    """What a scripted user says first: why it calls and what it knows about itself."""
    instructions = scenario.get("instructions")
    if isinstance(instructions, str):
        return instructions.strip()
    assert isinstance(instructions, Mapping)
    parts = [str(instructions.get(k) or "").strip() for k in ("reason_for_call", "known_info")]
    return first_person(" ".join(p for p in parts if p))


def evaluation(raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """τ²'s criteria with every list present and the reward basis explicit."""
    criteria = dict(raw or {})
    for key in ("actions", "communicate_info", "nl_assertions", "env_assertions"):
        criteria[key] = list(criteria.get(key) or [])
    criteria["reward_basis"] = list(criteria.get("reward_basis") or DEFAULT_REWARD_BASIS)
    criteria["has_actions"] = raw is not None and raw.get("actions") is not None
    return criteria


def build_task(world: str, domain: str, raw: Mapping[str, Any]) -> Task:
    """One τ² task of ``domain`` as a task of the pack ``world``."""
    criteria = evaluation(raw.get("evaluation_criteria"))
    gold: list[GoldCall] = []
    user_gold: list[UserGoldCall] = []  # dual control (telecom): the user's acts, each after the agent calls before it
    for action in criteria["actions"]:
        arguments = dict(action.get("arguments") or {})
        if action.get("requestor", "assistant") == "assistant":
            gold.append(GoldCall(name=action["name"], arguments=arguments))
        else:
            user_gold.append(UserGoldCall(name=action["name"], arguments=arguments, after=len(gold)))
    scenario = raw["user_scenario"]
    description = raw.get("description") or {}
    info = [str(i) for i in criteria["communicate_info"]]
    return Task(
        id=str(raw["id"]),
        world=world,
        description=str(description.get("purpose") or "") if isinstance(description, Mapping) else "",
        tags=[TAG, f"{TAG}:{domain}", *(f"{TAG}:basis:{b}" for b in criteria["reward_basis"])],
        user_scenario=scenario_text(scenario),
        evaluation=criteria,
        goals=[
            Goal(
                user=UserIntent(explicit=opening(scenario)),
                gold=gold,
                user_gold=user_gold,
                gold_answer="; ".join(info) if info else None,
                # Nothing to change and nothing to tell: what the user asks is against the policy (τ²'s refusals).
                outcome="solve" if info or gold or user_gold else "decline",
            )
        ],
    )
