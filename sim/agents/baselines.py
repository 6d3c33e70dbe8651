"""Calibration baselines: the oracle (gold replay with backup paths), the null agent (always declines) and the
naive agent (the unstressed gold, read from nothing).

A harness whose oracle does not score 1.0 or whose null agent does not score 0.0 has a bug in its
tasks, world or judges; both are cheap and run on every change.
"""

from __future__ import annotations

from collections.abc import Sequence

from sim.agents import oracle_words as words
from sim.agents.oracle_words import Setback, setback
from sim.core import AgentRuntime, EpisodeGold, Event, ToolCall
from worlds.stressors.types.search import INFO_TOOL


class OracleAgent:
    """Replays the turn's gold path; when a call fails, switches to the next alternative path.

    Paths that use a function already seen failing are tried last, so after an outage the oracle goes
    straight to the backup plan instead of retrying the dead function.

    Under tool search (a toolkit that offers ``get_info``), a gold function not callable yet is looked up first,
    as any agent must: ``get_info`` is read-only and outside the gold, so the judges ignore it.

    With a user who talks over several turns per goal it behaves as a good agent would: it asks for values the
    user withheld instead of guessing, and does a goal once (a later turn of the same goal — an answer, a change
    of mind it already knew from the gold — gets an acknowledgement).

    After a failed call it says what happened in its own words (``sim.agents.oracle_words``), never a reference
    response: the error-handling judge compares replies with that reference.
    """

    name = "oracle"

    def __init__(self, gold: EpisodeGold) -> None:
        self._gold = gold

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        turn = self._gold.current()
        if turn.user_gold and turn.outcome != "decline":
            return await _dual_control_stage(history, self._gold, runtime)
        if (reply := reply_without_calls(history, self._gold, runtime)) is not None:
            return reply
        failed: set[str] = set()
        setbacks: list[Setback] = []
        done: list[str] = []  # core calls that went through, for a give-up to say
        remaining = turn.paths()
        step = 0
        while remaining:
            # Stable sort: among paths that avoid failed functions, gold order is kept.
            remaining.sort(key=lambda path: any(c.name in failed for c in path))
            path = remaining.pop(0)
            # One model response per path tried, as a gold path is one step in BFCL's data (whose 20-step rule an
            # oracle making a call per response breaks on its 34-call turns); a lookup's answer comes a response first.
            step += 1
            for gold in path:
                step += await _find(runtime, gold.name, step)
                call = ToolCall(id="", name=gold.name, arguments=dict(gold.arguments))
                result = await runtime.call(call, step=step)
                if not result.ok:
                    failed.add(gold.name)
                    setbacks.append(setback(gold.name, result))
                    break
                if gold.role == "core":
                    done.append(gold.name)
            else:
                used = [c.name for c in path if c.role == "core"]
                return words.recovered(turn.gold_answer or "Done.", setbacks, used)
        return words.gave_up(setbacks, done)


def reply_without_calls(history: Sequence[Event], gold: EpisodeGold, runtime: AgentRuntime) -> str | None:
    """What an oracle says when the turn needs no call: a question for values the user withheld, an
    acknowledgement of a goal done already, or, on a goal nothing may do, why not in its own words; else None."""
    turn = gold.current()
    said = next((ev for ev in reversed(history) if ev.kind == "user_message"), None)
    act = said.user_act if said is not None else None
    if act is not None and act.withheld:
        return f"Before I do that: what {' and '.join(w.replace('_', ' ') for w in act.withheld)} do you want?"
    if _done_already(history, gold.goal):
        return turn.gold_answer or "Done."
    if turn.outcome == "decline":  # nothing it may call does it: say so, call nothing
        return words.declined(gold, (t.name for t in runtime.current_tools()))
    return None


async def _dual_control_stage(history: Sequence[Event], gold: EpisodeGold, runtime: AgentRuntime) -> str:
    """A goal the user does part of on its own tools: the agent's gold is cut where the user must act, and each
    turn does one piece and then asks the user for its acts, by name and arguments (the turns of this goal so far
    say which piece is next). The last turn says the goal's answer."""
    turn = gold.current()
    stops = sorted({min(u.after, len(turn.gold)) for u in turn.user_gold})
    stage = sum(1 for ev in history if ev.kind == "agent_message" and ev.goal_index == gold.goal and not ev.replayed)
    start = stops[stage - 1] if 0 < stage <= len(stops) else 0
    end = stops[stage] if stage < len(stops) else len(turn.gold)
    if stage > len(stops):
        return turn.gold_answer or "Done."
    for call in turn.gold[start:end]:
        result = await runtime.call(ToolCall(id="", name=call.name, arguments=dict(call.arguments)), step=1)
        if not result.ok:
            return words.gave_up([setback(call.name, result)], [])
    if stage == len(stops):
        return turn.gold_answer or "Done."
    asked = [u for u in turn.user_gold if min(u.after, len(turn.gold)) == end]
    return words.ask_user_to_act([(u.name, dict(u.arguments)) for u in asked])


def _done_already(history: Sequence[Event], goal: int) -> bool:
    """The agent already answered an earlier turn of this goal having called something (or declined it)."""
    replied = [ev for ev in history if ev.goal_index == goal and not ev.replayed and ev.kind != "user_message"]
    return any(ev.kind == "tool_call" for ev in replied)


async def _find(runtime: AgentRuntime, name: str, step: int) -> int:
    """Make ``name`` callable through ``get_info`` when it is hidden behind a tool search, in the response ``step``;
    the steps it took (1: the call waits for the next response)."""
    callable_now = {t.name for t in runtime.current_tools()}
    if name in callable_now or INFO_TOOL not in callable_now:
        return 0
    await runtime.call(ToolCall(id="", name=INFO_TOOL, arguments={"tool_name": name}), step=step)
    return 1


class NullAgent:
    """Never calls a tool; always declines. The floor every score is compared against."""

    name = "null"

    def __init__(self, gold: EpisodeGold) -> None:
        """Built per episode like the other calibration agents; it reads nothing of the gold."""

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        return "I'm sorry, I can't help with that."


class NaiveAgent:
    """Replays the primary gold path of the task as it was before any stressor rewrote it, and stops the turn at
    the first failed call: it reads no docs, no notices and no errors, and never retries or looks for a backup.

    What an agent that does not read gets under each stressor: a format rule, a new prerequisite, a required
    follow-up or an error costs it the turn; a look-alike, a vague description or a sponsored entry does not
    (only a reader can be misled by text).
    """

    name = "naive"

    def __init__(self, gold: EpisodeGold) -> None:
        self._gold = gold

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        turn = self._gold.current_unstressed()
        for gold in turn.gold:  # the path in one model response, as the oracle's
            if not (await runtime.call(ToolCall(id="", name=gold.name, arguments=dict(gold.arguments)), step=1)).ok:
                return "Something went wrong."
        return turn.gold_answer or "Done."
