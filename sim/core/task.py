"""Task value types: a conversation plan, its goals and the gold calls of each."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import AliasChoices, Field, JsonValue

from sim.core.attack import Attack
from sim.core.tools import Frozen

CallRole = Literal["core", "support"]
GoalOutcome = Literal["solve", "decline"]


GOLD_ARGUMENTS_UNKNOWN = "gold-arguments-unknown"
"""Tag of tasks whose gold names the functions but not their arguments (ToolBench queries): nothing to execute, and
no arguments to score a call's slots against."""


def _empty(value: object) -> bool:
    return not value


class GoldCall(Frozen):
    """One call of a reference solution."""

    name: str = Field(description="Function name.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Exact expected arguments.")
    accepted: dict[str, list[Any]] = Field(
        default_factory=dict,
        description="Other values a parameter may take (the leaderboard's possible answers: 'NYC' beside 'New York "
        "City'), each compared as the gold value is.",
    )
    result: str | None = Field(
        default=None,
        description="What the call returns when the goal's gold is replayed in order from the task's initial state, "
        "as text, where a world records it (BFCL's response check compares the agent's results with it). None: not "
        "recorded.",
    )
    role: CallRole = Field(
        default="core",
        description="core: fulfils the user's intent and is scored; support: a lookup or prerequisite "
        "that a good agent may or may not need, never scored.",
    )


class UserGoldCall(GoldCall):
    """A call the user makes on its own tools in a dual-control world (``sim.core.DualControlWorld``), when the
    agent asks for it."""

    after: int = Field(
        default=0,
        ge=0,
        description="How many of the goal's ``gold`` calls the agent makes before the user makes this one: the order "
        "of agent and user acts (τ²'s telecom: the user reboots, the agent enables roaming, the user toggles data).",
    )


class UserIntent(Frozen):
    """What the user wants for one goal, in the renderings a user simulator may pick from."""

    explicit: str = Field(description="Self-contained request naming every entity.")
    coreferential: str | None = Field(
        default=None, description="Same request leaning on earlier turns ('turn it off too')."
    )
    paraphrases: list[str] = Field(default_factory=list, description="Other wordings of the explicit request.")
    refers_to: str | None = Field(
        default=None,
        description="The entity an earlier goal names and the coreferential rendering leaves out ('it' is this).",
    )
    withheld: list[str] = Field(
        default_factory=list,
        description="Values this request leaves out on purpose, by parameter (a benchmark's missing-parameter turn, "
        "such as BFCL's): the right move is to ask. A later goal's ``gives`` supplies them. Users mark the message "
        "(``UserAct.withheld``), so the clarification judge scores it as it does the underspecified style.",
    )
    gives: list[str] = Field(
        default_factory=list,
        description="Values an earlier goal withheld (``withheld``) that this request supplies (``UserAct.gave``).",
    )


class Goal(Frozen):
    """One goal of the conversation and what a correct agent does for it.

    A goal is what the user wants done; a conversation turn is one user message and the agent's answer, and
    several turns may serve one goal (``Event.goal`` says which)."""

    user: UserIntent
    gold: list[GoldCall] = Field(
        description="Primary solution path, in order. Empty means the agent should call nothing that acts."
    )
    alternatives: list[list[GoldCall]] = Field(
        default_factory=list, description="Other complete solution paths that reach the same outcome."
    )
    user_gold: list[UserGoldCall] = Field(
        default_factory=list,
        exclude_if=_empty,  # a task without dual control dumps as before (stored tasks, fingerprints)
        description="Dual control: the calls the user makes on its own tools for this goal, in order, each placed "
        "among the agent's ``gold`` calls; the agent must ask for them (it cannot make them). Empty: the user only "
        "talks.",
    )
    reference_response: str | None = Field(
        default=None, description="A good reply when the goal's calls fail (for error-handling judges)."
    )
    criteria: list[str] = Field(
        default_factory=list,
        description="What the error-handling judge checks in the reply when the goal's calls fail (a scenario's).",
    )
    gold_answer: str | None = Field(default=None, description="Facts the final reply must convey, if any.")
    answer: JsonValue = Field(
        default=None,
        description="The exact answer the final reply must give, where there is one (a query's result: records or "
        "values); the completion judge compares it after deterministic normalisation. None: no exact answer.",
    )
    free_arguments: list[str] = Field(
        default_factory=list,
        description="Optional arguments this goal does not constrain, as ``param`` (in any call of the goal) or "
        "``tool.param``: an agent may give them any value or leave them out (a harmless ``limit: 10``), and the "
        "judges that compare calls with the gold (core API accuracy, slot F1, AST, failure stage) skip them. A "
        "required argument is always constrained. Empty: every argument is compared.",
    )
    tools: list[str] | None = Field(
        default=None,
        description="The functions the agent may call while the user pursues this goal, by the world's names; None: "
        "the episode's toolkit. A world function left out is missing for this goal: not offered, and a call to it is "
        "refused as an unknown tool. Every gold and alternative call of the goal must be listed.",
    )
    outcome: GoalOutcome = Field(
        default="solve",
        description="solve: the gold paths do it. decline: nothing the agent can call does it (a function is "
        "missing, every path is down); a good agent says so, without inventing a call or looping, and the gold is "
        "what it may still do (usually nothing that acts).",
    )

    def acts(self, path: list[GoldCall]) -> list[tuple[bool, GoldCall]]:
        """A path with the goal's user acts placed among its calls, in order: (by the user?, the call). A path of
        another length than the primary (an alternative plan) keeps the user acts at their places, the last ones
        after its end."""
        out: list[tuple[bool, GoldCall]] = []
        for i in range(len(path) + 1):
            out += [(True, u) for u in self.user_gold if u.after == i or (i == len(path) and u.after > i)]
            if i < len(path):
                out.append((False, path[i]))
        return out

    def paths(self) -> list[list[GoldCall]]:
        """Every accepted solution path, primary first."""
        return [self.gold, *self.alternatives]

    def free_in(self, tool: str) -> frozenset[str]:
        """The arguments of a call of ``tool`` this goal leaves free (``free_arguments``)."""
        return free_in(self.free_arguments, tool)


def free_in(free_arguments: Sequence[str], tool: str) -> frozenset[str]:
    """The parameters of ``tool`` that ``free_arguments`` (``param`` or ``tool.param`` entries) name."""
    if not free_arguments:
        return frozenset()
    prefix = f"{tool}."
    return frozenset(e.removeprefix(prefix) if e.startswith(prefix) else e for e in free_arguments)


class Task(Frozen):
    """A conversation plan over one world: the user's goals, in order."""

    id: str = Field(description="Unique within its world.")
    world: str = Field(description="Name of the world the task runs in.")
    persona: str | None = Field(default=None, description="Persona name for simulated users.")
    description: str = Field(default="", description="What the task tests, for reports.")
    tags: list[str] = Field(default_factory=list, description="Free labels (e.g. 'multi-turn', 'alt-path').")
    gold_source: str | None = Field(
        default=None,
        exclude_if=lambda source: source is None,  # tasks with their author's gold dump as before (fingerprints)
        description="Where the gold came from when the task's author did not write it: ``drafted:MODEL`` for calls a "
        "model filled in from the request and the simulator executed (``squall worlds draft-gold``). None: the "
        "author's.",
    )
    user_scenario: str | None = Field(
        default=None,
        description="The user's whole brief where a benchmark writes one (τ²'s user scenario: persona, reason for "
        "call, known and unknown info, instructions): an LLM user plays it as written; scripted users speak the "
        "goals' wordings. None: the goals and the persona are the brief.",
    )
    evaluation: dict[str, JsonValue] | None = Field(
        default=None,
        description="A benchmark's own evaluation criteria as its data writes them, for the judge that reproduces "
        "its verdict (τ²'s evaluation_criteria: actions, communicate_info, nl_assertions, reward_basis). None: none.",
    )
    attacks: list[Attack] = Field(
        default_factory=list,
        exclude_if=lambda attacks: not attacks,
        description="Instructions an injection stressor planted in tool results, each with what the attacker wants "
        "(``sim.core.attack``): the gold ignores them; the injection judge reads them. Empty: no attack.",
    )
    goals: list[Goal] = Field(
        min_length=1,
        validation_alias=AliasChoices("goals", "turns"),
        description="The user's goals in order. Reads the old key ``turns`` too (task files and stored runs "
        "written before goals were named goals); always written as ``goals``.",
    )
