"""The two sides of the BFCL multi-turn agreement suite: one model output (per turn, per step, the calls) judged by
BFCL's own ``multi_turn_checker`` (after BFCL's inference loop and runner rules) and by squall's ``bfcl_multi_turn``
judge on an episode played through squall's loop on the BFCL world; and the outputs the suite feeds them (the gold,
systematic damage, seeded random mutations). Test code only: BFCL's checker is imported here, never in squall."""

from __future__ import annotations

import copy
import functools
import random
import re
from collections.abc import Callable, Sequence
from typing import Any

from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils as bfcl_executor
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

from judges.bfcl.bfcl_multi_turn import STEP_LIMIT, BfclMultiTurn
from personas import ScriptedUser, parse_user_spec
from sim.core import AgentFactory, AgentRuntime, EpisodeGold, EpisodeResult, Event, Task, ToolCall, WorldContext
from sim.episode.env import EpisodeEnv, EpisodeLimits, EpisodeSpec
from sim.episode.loop import run_episode
from sim.llm.gateway import Gateway
from worlds.bfcl.source import answer_file, data_file, read_lines
from worlds.registry import load_world

CATEGORIES = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context")
Call = tuple[str, dict[str, Any]]
Output = list[list[list[Call]]]
"""Per turn, per model step, the calls that step made (a step never empty: BFCL drops those)."""
LIMITS = EpisodeLimits(max_steps=500, max_turns=50)
"""Far above any output here: squall's own per-turn budget must not cut what BFCL's loop would play."""


@functools.cache
def pack() -> Any:
    return load_world("bfcl:multi_turn")


@functools.cache
def entries() -> dict[str, tuple[dict[str, Any], list[list[str]]]]:
    """Entry id -> (BFCL's test entry, its ground truth), as BFCL's runner hands them to the checker."""
    out = {}
    for category in CATEGORIES:
        truth = {str(a["id"]): a["ground_truth"] for a in read_lines(answer_file(category))}
        for raw in read_lines(data_file(category)):
            out[str(raw["id"])] = (raw, truth[str(raw["id"])])
    return out


def tasks() -> list[Task]:
    return list(pack().tasks())


def gold_output(task: Task) -> Output:
    """The gold as a model would give it: each turn's calls in one step (none for an empty turn)."""
    return [[[(c.name, dict(c.arguments)) for c in goal.gold]] if goal.gold else [] for goal in task.goals]


def render(call: Call) -> str:
    """A call as BFCL's decoder hands it to the executor: ``name(arg=repr, ...)``."""
    name, arguments = call
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in arguments.items())})"


# --- BFCL's side ---

_case = 0


def bfcl_verdict(task_id: str, output: Output) -> tuple[bool, str]:
    """BFCL's verdict on ``output``: its inference loop quits a turn's 21st step with calls, its runner fails an
    entry with fewer turns than the ground truth (force-terminated), its checker judges the rest."""
    global _case
    _case += 1
    entry, truth = entries()[task_id]
    turns: list[list[list[str]]] = []
    for steps in output:
        turns.append([[render(c) for c in step] for step in steps[: STEP_LIMIT + 1]])
        if len(steps) > STEP_LIMIT:
            break
    if len(turns) != len(truth):
        return False, "multi_turn:force_terminated"
    model = f"agreement_{_case}"  # the executor keeps instances by model name and entry: one name per case
    try:
        verdict = multi_turn_checker(turns, truth, copy.deepcopy(entry), task_id.rsplit("_", 1)[0], model)
    finally:
        prefix = re.sub(r"[-./:]", "_", model) + "_"
        for name in [n for n in vars(bfcl_executor) if n.startswith(prefix)]:
            del vars(bfcl_executor)[name]
    return bool(verdict["valid"]), str(verdict.get("error_type", ""))


# --- squall's side ---


class CallsAgent:
    """Plays a given output: in goal g, each step's calls in order (one model response per step), then a reply."""

    name = "bfcl-calls"

    def __init__(self, output: Output, gold: EpisodeGold) -> None:
        self._output, self._gold = output, gold

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        for step, calls in enumerate(self._output[self._gold.goal], start=1):
            for name, arguments in calls:
                await runtime.call(ToolCall(id="", name=name, arguments=copy.deepcopy(arguments)), step=step)
        return "Done."


async def squall_episode(task: Task, output: Output | None = None, agent: AgentFactory | None = None) -> EpisodeResult:
    """An episode of ``task`` with the plain scripted user, played by ``agent`` or a ``CallsAgent`` of ``output``."""
    user = ScriptedUser(parse_user_spec("scripted"))
    make = agent or functools.partial(CallsAgent, output or [])
    env = EpisodeEnv(pack(), make, user, Gateway(), ("bfcl-calls", "scripted"), limits=LIMITS)
    return await run_episode(EpisodeSpec(task=task, trial=0, seed=0), env)


async def squall_verdict(task: Task, output: Output) -> tuple[bool, str]:
    """squall's verdict, its reason in BFCL's words (``REASONS``)."""
    score = await BfclMultiTurn().score(await squall_episode(task, output))
    assert score.value is not None, (task.id, score.errors)
    return score.value == 1.0, REASONS[score.errors[0]] if score.errors else ""


REASONS = {
    "bfcl:empty_turn": "multi_turn:empty_turn_model_response",
    "bfcl:state_mismatch": "multi_turn:instance_state_mismatch",
    "bfcl:response_mismatch": "multi_turn:execution_response_mismatch",
    "bfcl:step_limit": "multi_turn:force_terminated",
    "bfcl:unplayed_turns": "multi_turn:force_terminated",
}
"""squall's error code -> BFCL's ``error_type`` for the same failure."""


# --- damage ---

Damage = Callable[[Task, Output, random.Random], Output | None]
"""A change to an output, seeded; None where it does not apply to the entry."""


def _calls(output: Output) -> list[tuple[int, int, int]]:
    return [(t, s, c) for t, steps in enumerate(output) for s, step in enumerate(steps) for c in range(len(step))]


def _without_empty_steps(output: Output) -> Output:
    return [[step for step in steps if step] for steps in output]


def drop_call(task: Task, output: Output, rng: random.Random) -> Output | None:
    places = _calls(output)
    if not places:
        return None
    t, s, c = rng.choice(places)
    out = copy.deepcopy(output)
    del out[t][s][c]
    return _without_empty_steps(out)


def changed_value(value: Any, rng: random.Random) -> Any:
    """Another value of the same kind (a type the backend takes, so the call still runs)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + rng.choice((1, -1, 7))
    if isinstance(value, float):
        return round(value + rng.choice((0.5, -1.25, 10.0)), 4)
    if isinstance(value, str):
        return rng.choice((value + "_x", value.upper() if value != value.upper() else value + "1", "other"))
    if isinstance(value, list):
        return value[:-1] if value else ["x"]
    if isinstance(value, dict):
        return {**value, "extra": 1}
    return "x"


def _one_argument(output: Output, rng: random.Random, new: Callable[[Any, random.Random], Any]) -> Output | None:
    """One argument of one call, picked at random, given ``new(value, rng)``."""
    places = [p for p in _calls(output) if output[p[0]][p[1]][p[2]][1]]
    if not places:
        return None
    t, s, c = rng.choice(places)
    out = copy.deepcopy(output)
    arguments = out[t][s][c][1]
    key = rng.choice(sorted(arguments))
    arguments[key] = new(arguments[key], rng)
    return out


def change_argument(task: Task, output: Output, rng: random.Random) -> Output | None:
    return _one_argument(output, rng, changed_value)


def add_call(task: Task, output: Output, rng: random.Random) -> Output | None:
    """One of the entry's own gold calls made once more, in a turn where the function is offered."""
    pool = [(c.name, dict(c.arguments)) for goal in task.goals for c in goal.gold]
    turns = [t for t, goal in enumerate(task.goals) if goal.tools is None or pool]
    if not pool or not turns:
        return None
    t = rng.choice(turns)
    offered = task.goals[t].tools
    fits = [call for call in pool if offered is None or call[0] in offered]
    if not fits:
        return None
    out = copy.deepcopy(output)
    if not out[t]:
        out[t].append([])
    step = rng.randrange(len(out[t]))
    out[t][step].insert(rng.randint(0, len(out[t][step])), copy.deepcopy(rng.choice(fits)))
    return out


def swap_order(task: Task, output: Output, rng: random.Random) -> Output | None:
    """Two neighbouring calls of one turn change places."""
    flat = [(t, [c for step in steps for c in step]) for t, steps in enumerate(output)]
    turns = [(t, calls) for t, calls in flat if len(calls) >= 2]
    if not turns:
        return None
    t, calls = rng.choice(turns)
    i = rng.randrange(len(calls) - 1)
    calls[i], calls[i + 1] = calls[i + 1], calls[i]
    out = copy.deepcopy(output)
    out[t] = [copy.deepcopy(calls)]
    return out


def move_to_next_turn(task: Task, output: Output, rng: random.Random) -> Output | None:
    """A turn's calls made at the start of the next turn instead."""
    turns = [t for t in range(len(output) - 1) if output[t]]
    if not turns:
        return None
    t = rng.choice(turns)
    out = copy.deepcopy(output)
    out[t + 1] = out[t] + out[t + 1]
    out[t] = []
    return out


DAMAGE: dict[str, Damage] = {
    "drop": drop_call,
    "change_argument": change_argument,
    "add": add_call,
    "swap": swap_order,
    "move_to_next_turn": move_to_next_turn,
}


# --- random mutations: the damage above and a few more, stacked ---


def split_steps(task: Task, output: Output, rng: random.Random) -> Output | None:
    """A turn's calls spread over several steps (as a model calling one function at a time)."""
    turns = [t for t, steps in enumerate(output) if sum(map(len, steps)) >= 2]
    if not turns:
        return None
    t = rng.choice(turns)
    calls = [c for step in output[t] for c in step]
    out = copy.deepcopy(output)
    out[t] = [[c] for c in calls]
    return out


def empty_turn(task: Task, output: Output, rng: random.Random) -> Output | None:
    turns = [t for t, steps in enumerate(output) if steps]
    if not turns:
        return None
    out = copy.deepcopy(output)
    out[rng.choice(turns)] = []
    return out


def other_function(task: Task, output: Output, rng: random.Random) -> Output | None:
    """A call names another function the entry's gold uses (its arguments may not fit it)."""
    names = sorted({c.name for goal in task.goals for c in goal.gold})
    places = _calls(output)
    if len(names) < 2 or not places:
        return None
    t, s, c = rng.choice(places)
    out = copy.deepcopy(output)
    name, arguments = out[t][s][c]
    out[t][s][c] = (rng.choice([n for n in names if n != name]), arguments)
    return out


def wrong_type(task: Task, output: Output, rng: random.Random) -> Output | None:
    """An argument of another type: a number as text, text as a number."""

    def retyped(value: Any, rng: random.Random) -> Any:
        return str(value) if not isinstance(value, str) else rng.choice((0, 1.5, None, [value]))

    return _one_argument(output, rng, retyped)


def many_steps(task: Task, output: Output, rng: random.Random) -> Output | None:
    """A turn that repeats one of its calls step after step, around BFCL's 20-step limit."""
    turns = [t for t, steps in enumerate(output) if steps]
    if not turns:
        return None
    t = rng.choice(turns)
    out = copy.deepcopy(output)
    repeated = out[t][0][0]
    out[t] = out[t] + [[copy.deepcopy(repeated)] for _ in range(rng.randint(STEP_LIMIT - 2, STEP_LIMIT + 3))]
    return out


MUTATIONS: dict[str, Damage] = {
    **DAMAGE,
    "split_steps": split_steps,
    "empty_turn": empty_turn,
    "other_function": other_function,
    "wrong_type": wrong_type,
    "many_steps": many_steps,
}


def mutate(task: Task, rng: random.Random) -> tuple[list[str], Output]:
    """The gold with one to three random mutations stacked (those that apply)."""
    output = gold_output(task)
    applied = []
    for _ in range(rng.randint(1, 3)):
        name = rng.choice(sorted(MUTATIONS))
        changed = MUTATIONS[name](task, output, rng)
        if changed is not None:
            output, applied = changed, [*applied, name]
    return applied, output


# --- the disagreements by design: each is a rule on the output, with the reason ---


def calls_unoffered(task: Task, output: Output) -> bool:
    """A call names a function the turn does not offer (held out until a later turn, or of no class the entry
    involves): squall refuses it, BFCL's executor runs any method of the entry's instances."""
    toolkit = {s.name for s in pack().new_world(0, WorldContext(task=task)).specs()}
    for goal, steps in zip(task.goals, output, strict=True):
        offered = set(goal.tools) if goal.tools is not None else toolkit
        if any(name not in offered for step in steps for name, _ in step):
            return True
    return False


def last_turn_past_step_limit(task: Task, output: Output) -> bool:
    """The last turn made calls in more than 21 steps: BFCL's loop stops it after the 21st and checks those; squall
    played the rest, which it cannot take back, and fails it (a run with ``--max-steps 21`` never plays a 22nd)."""
    return len(output[-1]) > STEP_LIMIT + 1


EXPLAINED: dict[str, Callable[[Task, Output], bool]] = {
    "calls a function the turn does not offer": calls_unoffered,
    "last turn past BFCL's step limit": last_turn_past_step_limit,
}
"""Why squall's verdict may differ from BFCL's: a disagreement none of these rules covers fails the suite."""


def explain(task: Task, output: Output) -> str | None:
    return next((why for why, rule in EXPLAINED.items() if rule(task, output)), None)
