"""What the oracles say after a call failed, in their own words: which call failed and how, and what they did next.

A handful of templates keyed by the kind of fault (the result's status) and of recovery (a backup function, the same
function again, giving up, nothing to call). They are written from the episode, never from a goal's or scenario's
reference response: the error-handling judge compares replies with that reference, so an oracle reciting it would
make the judge's top score circular and read like a spec in chat (issue 38).

The notes carry no digits and no refusal phrase: appended to a gold answer, they leave the answer judges (exact
numbers, refusals) reading the answer as before. A give-up says "can't"/"couldn't" so the decline judge reads it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sim.core import EpisodeGold, ToolResult, ToolStatus

HOW: dict[ToolStatus, str] = {
    "unavailable": "the service to {action} was unavailable",
    "timeout": "the request to {action} timed out",
    "rate_limited": "the request to {action} was rate-limited",
    "unauthorized": "the request to {action} was refused for lack of permission",
    "not_found": "the request to {action} pointed at an unknown item",
    "invalid_arguments": "the request to {action} was rejected",
}
"""How a call failed, by status, in words a user follows (the raw message is often an opaque trace id)."""
OTHER = "the request to {action} returned an error"


@dataclass(frozen=True)
class Setback:
    """One failed call of the goal: the function and how it failed."""

    name: str
    status: ToolStatus


def setback(name: str, result: ToolResult) -> Setback:
    return Setback(name, result.status)


def action(name: str) -> str:
    """A function's name as words ("set_power" -> "set power"): what the call does, not an identifier. Digits are
    left out ("get_friend_student_id_2" -> "get friend student id"): a number in the note would read to the answer
    judges as a value the reply states."""
    words = [w for w in re.split(r"[_\s]+", name) if w and not any(c.isdigit() for c in w)]
    return " ".join(words) or "that function"


def _join(items: Iterable[str]) -> str:
    said = list(dict.fromkeys(items))
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]


def _told(setbacks: Sequence[Setback]) -> str:
    """Each failed function once, with how it first failed: "the service to set power was unavailable"."""
    first = {s.name: s.status for s in reversed(setbacks)}
    names = dict.fromkeys(s.name for s in setbacks)
    return _join(HOW.get(first[name], OTHER).format(action=action(name)) for name in names)


def recovered(answer: str, setbacks: Sequence[Setback], used: Sequence[str]) -> str:
    """The answer, then what went wrong on the way and how the oracle got round it (``used``: the calls of the path
    that went through)."""
    if not setbacks:
        return answer
    failed = {s.name for s in setbacks}
    instead = [name for name in used if name not in failed]
    if failed - set(used) and instead:
        return f"{answer} Along the way {_told(setbacks)}, so I went another way: {_join(map(action, instead))}."
    return f"{answer} Along the way {_told(setbacks)} at first; it went through when I tried again."


def gave_up(setbacks: Sequence[Setback], done: Sequence[str]) -> str:
    """Every path failed: what failed, what did go through before it, and what the user can do."""
    parts = [f"I couldn't get this done: {_told(setbacks)}."]
    if done:
        parts.append(f"What did go through: {_join(map(action, done))}.")
    if any(s.status == "timeout" for s in setbacks):
        parts.append("A call that timed out may still have taken effect, so it is worth checking before asking again.")
    else:
        parts.append("Asking me again in a little while may work.")
    return " ".join(parts)


def declined(gold: EpisodeGold, offered: Iterable[str]) -> str:
    """A goal nothing offered can do: the function it would need is missing from the toolkit, or down, or the
    request was never one the tools cover. Read from the goal as written and the tools offered now."""
    needed = [c.name for path in gold.current_unstressed().paths() for c in path if c.role == "core"]
    callable_now = set(offered)
    absent = [name for name in needed if name not in callable_now]
    if absent:
        return f"That can't be done at the moment: I have been given no function to {_join(map(action, absent))}."
    if needed:
        down = "service to " + _join(map(action, needed))
        return (
            f"That can't be done right now: the {down} is down, and the other functions I have don't cover this. "
            "Asking me again later may work."
        )
    return "That can't be done with the functions I have: they don't cover this request."


def ask_user_to_act(calls: Sequence[tuple[str, dict[str, object]]]) -> str:
    """Dual control: the acts only the user can do, asked for by their tools' names (and arguments, where any), so
    a user reading the request knows exactly which of its tools to use."""
    said = [f"{name}({json.dumps(args, sort_keys=True)})" if args else f"{name}()" for name, args in calls]
    return f"Please do this on your side and tell me what you see: {'; '.join(said)}."
