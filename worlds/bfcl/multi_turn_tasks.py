"""A multi-turn entry as a squall task: goal i = BFCL turn i, the gold its ground truth with BFCL's results.

- ``Goal.user.explicit``: the turn's user message; the turn a held-out function comes back (an empty turn in the data)
  says BFCL's ``DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC``.
- ``Goal.gold``: the turn's ground-truth calls (``role="core"``), each with ``result`` = the text BFCL's executor
  gives it when the entry's whole ground truth is replayed in order from the initial state.
- miss_func: every goal lists its callable tools (``Goal.tools``): the held-out functions are left out until the
  turn that adds them back; the turn before that, whose ground truth is empty, is a ``decline`` goal.
- miss_param: a turn whose ground truth is empty and that a later turn completes withholds values on purpose
  (``UserIntent.withheld``; the next goal ``gives`` them): the right move is to ask, which the clarification judge
  scores.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sim.core import Goal, GoldCall, Task, ToolCall, UserIntent
from worlds.bfcl.gold_parse import GoldParseError, ParsedCall, parse_call
from worlds.bfcl.multi_turn_entries import Backends, Entry
from worlds.bfcl.multi_turn_world import BfclWorld
from worlds.bfcl.source import BfclError

TAG = "bfcl"
MULTI_TURN_TAG = "multi-turn"


def build_task(world_name: str, entry: Entry, backends: Backends, added_back_prompt: str) -> Task:
    """The task of one entry; its gold is replayed once here, in a world of its own, for the result texts."""
    parsed = [[_parse(text, entry, t, backends) for text in turn] for t, turn in enumerate(entry.ground_truth)]
    results = _replay(BfclWorld(world_name, backends, entry, base={}), parsed)  # no task state wanted here
    toolkit = backends.tool_names(entry.classes)
    decline_turns = {turn - 1 for turn in entry.missed} if entry.missed else set()
    goals = []
    for t, calls in enumerate(parsed):
        text = "\n".join(entry.turns[t]) if entry.turns[t] else added_back_prompt
        gold = [
            GoldCall(name=c.name, arguments=dict(c.arguments), result=r) for c, r in zip(calls, results[t], strict=True)
        ]
        intent = UserIntent(explicit=text, withheld=_withheld(entry, t, parsed), gives=_given(entry, t, parsed))
        goals.append(
            Goal(
                user=intent,
                gold=gold,
                tools=_tools_at(entry, t, toolkit, calls) if entry.missed else None,
                outcome="decline" if t in decline_turns and not gold else "solve",
            )
        )
    return Task(
        id=entry.id,
        world=world_name,
        description=f"BFCL {entry.category} over {', '.join(entry.classes)}",
        tags=[TAG, f"{TAG}:{entry.category}", MULTI_TURN_TAG],
        goals=goals,
    )


def _parse(text: str, entry: Entry, turn: int, backends: Backends) -> ParsedCall:
    try:
        call = parse_call(text, backends.signatures.get)
    except GoldParseError as error:
        raise BfclError(f"{entry.id}: turn {turn}: {error}") from error
    if backends.owner.get(call.name) not in entry.classes:
        raise BfclError(f"{entry.id}: turn {turn}: {call.name} belongs to no class the entry involves")
    return call


def _replay(world: BfclWorld, parsed: Sequence[Sequence[ParsedCall]]) -> list[list[str]]:
    """Each gold call's result text, the calls run in order from the initial state."""
    return [
        [
            str(world.execute(ToolCall(id=f"gold_{t}_{c}", name=call.name, arguments=dict(call.arguments))).content)
            for c, call in enumerate(turn)
        ]
        for t, turn in enumerate(parsed)
    ]


def _tools_at(entry: Entry, turn: int, toolkit: Sequence[str], gold: Sequence[ParsedCall]) -> list[str]:
    """The functions callable at ``turn``: the toolkit less those held out until a later turn. A function the turn's
    own ground truth calls stays callable: BFCL's data has one such slip (miss_func_49 calls ``tail`` a turn before
    handing it back), which no agent could pass otherwise, BFCL's response check wanting its result."""
    needed = {call.name for call in gold}
    hidden = {name for back, names in entry.missed.items() if turn < back for name in names} - needed
    return [name for name in toolkit if name not in hidden]


def _withheld(entry: Entry, turn: int, parsed: Sequence[Sequence[ParsedCall]]) -> list[str]:
    """miss_param: the values an empty-ground-truth turn leaves for the next turn to give, by parameter."""
    if "miss_param" not in entry.category or parsed[turn] or turn + 1 >= len(parsed) or not parsed[turn + 1]:
        return []
    said = " ".join(entry.turns[turn]).casefold()
    later = " ".join(entry.turns[turn + 1]).casefold()
    names = [
        name
        for call in parsed[turn + 1]
        for name, value in call.arguments.items()
        if isinstance(value, str | int | float) and _mentions(later, value) and not _mentions(said, value)
    ]
    return list(dict.fromkeys(names)) or ["details"]


def _given(entry: Entry, turn: int, parsed: Sequence[Sequence[ParsedCall]]) -> list[str]:
    return _withheld(entry, turn - 1, parsed) if turn > 0 else []


def _mentions(text: str, value: str | int | float) -> bool:
    word = str(value).casefold()
    return bool(word) and re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text) is not None
