"""Property-based fuzz of ``squall run`` over command lines, config files and task files.

The property, for every generated input:

* the exit code is 0, 2, or 3 (a run whose every episode failed, e.g. under a 1e-9 s deadline), and no
  traceback appears on stdout or stderr;
* on exit 2, stderr holds exactly one non-empty line, starting with ``error:``;
* on exit 2, the file system is as it was: no ``--out`` folder, no run folder, no ``latest`` link, and
  nothing new next to ``--out`` either (a run folder escaping through ``..`` would show up there).

Each example runs in a fresh temporary directory, made the working directory of the call, so relative
paths (``runs``, ``.``, ``..``, ``a/b``) stay inside it and the whole tree can be compared before and after.
Agents are ``oracle``, ``null``, pydantic-ai's offline ``test`` model, or values that fail validation: never
a network model, and never the embedded llama.cpp server (a guard fails the test if a case reaches it).
Valid runs are small (a few tasks and trials); ``--arg-match embedding`` only comes with the ``null`` agent,
which makes no calls to compare, so the MiniLM model is never loaded. Deterministic (derandomized), offline.
``test_found_inputs`` checks the same property on minimal inputs that broke it when this file was written.
"""

from __future__ import annotations

import contextlib
import copy
import datetime as dt
import io
import itertools
import json
import math
import os
import re
import tempfile
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import tomli_w
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from sim.cli.app import run_cli
from sim.cli.common import EXIT_NOTHING_SCORED
from worlds.domains.smart_home.pack import DATA_DIR

pytestmark = pytest.mark.slow

FUZZ = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    # No shrinking: each step may be a real run (~0.2 s), and shrinking one failure took ~50 s. Generated cases
    # are small already (valid options plus at most three broken things); FOUND below holds minimal ones.
    phases=[Phase.explicit, Phase.generate],
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

ROOT = "@ROOT"
"""Placeholder in generated argv and files for the example's temp dir (so failing examples read well)."""
WORK = "work"
"""The working directory of each call, inside the temp dir: ``..`` from it is still inside the temp dir."""
OUT = f"{ROOT}/{WORK}/runs"
FIXTURES: dict[str, str] = {"existing.txt": "hello\n", "good.toml": "limit = 1\ntrials = 1\n"}

VALID_TASKS: list[dict[str, Any]] = [
    json.loads(line) for line in (DATA_DIR / "tasks.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()
]
TASK_IDS = [t["id"] for t in VALID_TASKS]

# --- values: (plainly valid, everything else) per option or setting -------------------------------------

SAFE_CHARS = "ab0.-_: é[]\"'\\\n"
"""No '/': a generated string is at most one path component, so '..' is the farthest it can reach."""
CLI_TEXT = st.text(alphabet=SAFE_CHARS, max_size=8)
TOML_TEXT = st.text(alphabet=SAFE_CHARS + "\x00\t", max_size=8)

AGENTS_ORACLE = ["oracle", " oracle "]
AGENTS_MODEL = ["test", "text:test"]  # pydantic-ai's TestModel: offline, no HTTP
AGENTS_SILENT = ["null"]
AGENTS_BAD = ["foo:bar", "", "text:", "native:", "openai-chat:m@ftp://x", "ORACLE", "oracle:x", "text:oracle", ":"]

COUNT_BAD = ["0", "-1", "x", "", "1.0", "99999999999999999999999"]
SECONDS = (["1e-9", "0.5", "600", "inf", "1e309"], ["0", "-1", "-inf", "nan", "x", "", "1,5"])
STEPS = (["1", "2", "15", "10000000"], ["0", "-1", "x"])
CLI_VALUES: dict[str, tuple[list[str], list[str]]] = {
    "--world": (["smart_home"], ["SMART_HOME", "nope", "", ".", "..", "existing.txt", "emptydir", "missing.jsonl"]),
    "--user": (["scripted", "scripted:coreferential", "scripted:explicit"], ["scripted:", "scripted:x", "robot", ""]),
    "--stressors": (["outage", "outage,outage", " outage ", "", ","], ["earthquake", "outage,earthquake", "Outage"]),
    "--task": (TASK_IDS[:4], ["nope", "", "SH-001", "sh-001 "]),
    "--limit": (["1", "2", "3", " 2", "1000000000"], COUNT_BAD),
    "--trials": (["1", "2"], [*COUNT_BAD, "1000001", "1e3"]),  # never a valid large count: a long run
    "--seed": (["0", "7", "-1", "99999999999999999999999"], ["x", "1e3", ""]),
    "--concurrency": (["1", "2", "8"], ["0", "-3", "100001", "x"]),
    "--endpoint-concurrency": (["1", "3", "99999999999"], ["0", "-1", "x"]),
    "--out": (["runs", OUT, "a/b", ".", "..", "", "emptydir", "~", "runs/"], ["existing.txt", "existing.txt/sub"]),
    "--run-id": (["r", "r.1", "x" * 128, "R_-.9"], ["..", ".", "a/b", "latest", "", "-r", "x" * 129, " r", "é"]),
    "--max-steps": STEPS,
    "--max-turns": STEPS,
    "--episode-timeout": SECONDS,
    "--request-timeout": SECONDS,
    "--max-tokens": (["1", "512", "99999999999"], ["0", "-5", "x"]),
    "--temperature": (["0", "0.5", "2", "inf"], ["-1", "nan", "x"]),
    "--arg-match": (["exact", "embedding"], ["fuzzy", "", "EXACT"]),
    "--text-protocol": (["react", "tags"], ["ReAct", "", "xml"]),  # tags with a non-text agent: a clean exit 2
    "--embedding-threshold": (["0.8", "1", "1e-9"], ["1.01", "0", "-0.1", "nan", "inf", "x"]),
    "--config": (["good.toml"], ["missing.toml", "emptydir", "existing.txt", ""]),
}
LONG_NAMES = {"--out": "x" * 300, "--world": "x" * 300, "--config": "x" * 300}
"""A path component longer than the file system allows (255 bytes): OSError ENAMETOOLONG on any stat."""
JUNK_TOKENS = ["--bogus", "--bogus=1", "-z", "extra", "--help", "--resume", "--quiet", "--", "--limit=2", "--agent="]
DANGLING = ["--limit", "--world", "--agent", "--out", "--config"]

TOML_SCALARS = st.one_of(
    st.sampled_from([-1, 0, 1, 2, 3, 10**7, 2**63 - 1, -(2**63)]),  # no valid count above 3: runs stay small
    st.sampled_from([0.0, -0.5, 1e-9, 0.5, 1.0, 2.5, 1e308, math.inf, -math.inf, math.nan]),
    st.booleans(),
    TOML_TEXT,
    st.just(dt.date(1979, 5, 27)),
)
TOML_VALUES = st.one_of(
    TOML_SCALARS,
    st.lists(TOML_SCALARS, max_size=3),
    st.dictionaries(st.sampled_from(["a", "agent", "max_attempts"]), TOML_SCALARS, max_size=2),
)
TOML_STEPS: tuple[list[Any], list[Any]] = ([1, 2, 15, 10**7], [0, -1, "1"])
TOML_FIELDS: dict[str, tuple[list[Any], list[Any]]] = {
    "world": (["smart_home"], ["nope", "", ".", "..", "existing.txt", "missing.jsonl", 5, "x" * 300]),
    "user": (["scripted", "scripted:coreferential"], ["robot", "", ["scripted"]]),
    "stressors": ([["outage"], []], [["earthquake"], "outage", [1]]),
    "tasks": ([["sh-001"], ["sh-002", "sh-003"], []], [["nope"], "sh-001", [""]]),
    "limit": ([1, 2, 3], [0, -1, "2", 1.5]),
    "trials": ([1, 2], [0, -1, 1_000_001, "1"]),
    "seed": ([0, 7, -1, 2**63 - 1], ["x", 1.5]),
    "concurrency": ([1, 2, 4], [0, 100_001, "4"]),
    "endpoint_concurrency": ([1, 3], [0, -2]),
    "out": (["runs", "", ".", "..", "a/b", OUT], ["existing.txt", "a\x00b", "x" * 300, 5, [1], True]),
    "run_id": (["r", "r.1"], ["..", ".", "a/b", "latest", "", "x" * 129, 5]),
    "resume": ([False], [True, "yes", 1]),
    "max_steps": TOML_STEPS,
    "max_turns": TOML_STEPS,
    "episode_timeout_s": ([1e-9, 0.5, 600, math.inf], [0, -1, math.nan, "fast"]),
    "request_timeout_s": ([1e-9, 120], [0, math.nan]),
    "connect_timeout_s": ([0.5, 30.0], [0, math.nan]),
    "max_tokens": ([1, 512], [0]),
    "temperature": ([0.0, 1.5], [-0.1, math.nan]),
    "arg_match": (["exact", "embedding"], ["fuzzy", "", 1]),
    "text_protocol": (["react", "tags"], ["ReAct", "", 1]),
    "embedding_threshold": ([0.8, 1], [1.01, 0, math.nan]),
}
RETRY_FIELDS: dict[str, tuple[list[Any], list[Any]]] = {
    "max_attempts": ([1, 6], [0, -1, 1.5]),
    "base_delay_s": ([0, 0.5], [-1, math.nan]),
    "max_delay_s": ([0, 30], [-1, "x"]),
    "max_retry_after_s": ([0, 300.0], [-0.5]),
    "rate_limit_budget_s": ([0, 900], [-1, [1]]),
    "max_malformed": ([1, 2], [0, True]),
}
UNKNOWN_KEYS = ["trails", "Agent", "agent_", "retries", "", "a.b", "ünï", "max_atempts", "jitter"]
RAW_TOML = [
    "",
    "agent = oracle\n",
    "[run]\n[run]\n",
    'agent = "oracle"\nagent = "null"\n',
    "limit = 1\n[retry]\nmax_attempts = 1\n[retry.x]\ny = 1\n",
    "[run]\nlimit = 1\n[retry]\n",
    "run = 3\n",
    "[run.retry]\nmax_attempts = 0\n",
    "[[run]]\nlimit = 1\n",
    "retry = [1, 2]\n",
    "\ufefflimit = 1\n",
    "limit = 1\r\n",
    'out = "a\\u0000b"\n',
    "[ run ]\n'limit' = 0\n",
    "[run]\nretry.max_attempts = 0\n",
    "retry = { max_attempts = 0 }\n",
    "limit = 1\n\x00\n",
    "[retry]\n[retry.retry]\n",
]
DEEP_TOML = "\nzz = " + "[" * 1000 + "]" * 1000 + "\n"
"""Nested deeper than Python's recursion limit."""
HUGE_TOML = "\nzz = " + "1" * 5000 + "\n"
"""More digits than int() converts (4300)."""
JSON_GARBAGE = st.sampled_from([None, 0, -1, 1.5, "", "x", [], {}, True, [1], {"a": 1}, "\x00"])
FEW = st.sampled_from([0, 0, 0, 1, 1, 2, 3])
"""How many things to break in one case: often none, so that a good share of the cases run."""


def agents(calls: bool, model: bool = True) -> st.SearchStrategy[str]:
    """A valid agent spec. Without ``calls``, none that calls tools (in embedding mode those would load MiniLM);
    without ``model``, not the test model (a fuzzed retry policy could make its retries wait for hours)."""
    return st.sampled_from((AGENTS_ORACLE + (AGENTS_MODEL if model else []) if calls else []) + AGENTS_SILENT)


def pick(draw: st.DrawFn, values: tuple[list[Any], list[Any]], good: bool) -> Any:
    return draw(st.sampled_from(values[0] if good else values[1]))


# --- cases -------------------------------------------------------------------------------------------


@dataclass
class Case:
    """One ``squall run`` call: argv (without 'run'), files written in the working dir first, the --out state."""

    argv: list[str]
    files: dict[str, str | bytes] = field(default_factory=dict)
    out_state: str = "absent"  # of ROOT/work/runs: absent | empty (a folder) | file

    def __repr__(self) -> str:
        return short(f"Case(argv={self.argv!r}, files={self.files!r}, out_state={self.out_state!r})")


def short(text: str) -> str:
    """Runs of 20 or more of one character shown as 'x…(×300)', so that failing examples stay readable."""
    return re.sub(r"(.)\1{19,}", lambda m: f"{m.group(1)}…(×{len(m.group(0))})", text, flags=re.DOTALL)


def _insert(draw: st.DrawFn, argv: list[str], tokens: list[str]) -> list[str]:
    """Insert tokens at pair boundaries, so an option's value is never taken from them."""
    at = 2 * draw(st.integers(0, len(argv) // 2))
    return argv[:at] + tokens + argv[at:]


def _uses_embedding(argv: list[str], *tables: Any) -> bool:
    on_cli = any(a == "--arg-match" and b == "embedding" for a, b in itertools.pairwise(argv))
    return on_cli or any(isinstance(t, dict) and t.get("arg_match") == "embedding" for t in tables)


def _finish(draw: st.DrawFn, argv: list[str], agent: str | None, bad_agent: bool = False, out: int = 3) -> Case:
    """Add the agent (a bad one if asked), --out (in ``out`` of 4 cases), and -q."""
    if agent is not None:
        argv = _insert(draw, argv, ["--agent", draw(st.sampled_from(AGENTS_BAD)) if bad_agent else agent])
    if "--out" not in argv and draw(st.integers(0, 3)) < out:
        argv = _insert(draw, argv, ["--out", OUT])
    return Case([*argv, "-q"], out_state=draw(st.sampled_from(["absent", "absent", "absent", "empty", "file"])))


def _break_argv(draw: st.DrawFn, argv: list[str], how: str) -> list[str]:
    option = draw(st.sampled_from(sorted(CLI_VALUES)))
    if how == "bad value":
        return [*argv, option, pick(draw, CLI_VALUES[option], good=False)]  # the last one given wins
    if how == "text value":
        return [*argv, option, draw(CLI_TEXT)]
    if how == "long name":
        return [*argv, *draw(st.sampled_from(sorted(LONG_NAMES.items())))]
    if how == "junk":
        return _insert(draw, argv, [draw(st.sampled_from(JUNK_TOKENS))])
    if how == "resume":  # of a run that is not there
        return [*argv, "--resume", "--run-id", "r"]
    return argv


@st.composite
def command_lines(draw: st.DrawFn) -> Case:
    """Valid options, then a few broken: bad or random values, an unknown option, a bad agent, a dangling option."""
    options = draw(st.lists(st.sampled_from(sorted(CLI_VALUES)), max_size=5))
    argv = [token for option in options for token in (option, pick(draw, CLI_VALUES[option], good=True))]
    hows = ["bad value", "text value", "long name", "junk", "agent", "dangling", "resume"]
    breaks = [draw(st.sampled_from(hows)) for _ in range(draw(FEW))]
    for how in breaks:
        argv = _break_argv(draw, argv, how)
    case = _finish(draw, argv, draw(agents(calls=not _uses_embedding(argv))), bad_agent="agent" in breaks)
    if "dangling" in breaks:
        case.argv.append(draw(st.sampled_from(DANGLING)))
    return case


@st.composite
def settings_tables(draw: st.DrawFn, min_size: int = 0) -> dict[str, Any]:
    keys = draw(st.lists(st.sampled_from(sorted(TOML_FIELDS)), unique=True, min_size=min_size, max_size=5))
    table = {key: pick(draw, TOML_FIELDS[key], good=True) for key in keys}
    if draw(st.integers(0, 2)) == 0:
        retry_keys = draw(st.lists(st.sampled_from(sorted(RETRY_FIELDS)), unique=True, max_size=3))
        table["retry"] = {key: pick(draw, RETRY_FIELDS[key], good=True) for key in retry_keys}
    return table


def _break_table(draw: st.DrawFn, table: dict[str, Any], how: str) -> None:
    key = draw(st.sampled_from(sorted(TOML_FIELDS)))
    if how == "bad value":
        table[key] = pick(draw, TOML_FIELDS[key], good=False)
    elif how == "random value":
        table[key] = draw(TOML_VALUES)
    elif how == "unknown key":
        table[draw(st.sampled_from(UNKNOWN_KEYS))] = draw(TOML_SCALARS)
    elif how == "bad retry" and isinstance(retry := table.setdefault("retry", {}), dict):
        retry_key = draw(st.sampled_from(sorted(RETRY_FIELDS)))
        retry[retry_key] = pick(draw, RETRY_FIELDS[retry_key], good=False)
    elif how == "unknown retry key" and isinstance(retry := table.setdefault("retry", {}), dict):
        retry[draw(st.sampled_from(UNKNOWN_KEYS))] = 1
    elif how == "retry not a table":
        table["retry"] = draw(st.one_of(TOML_SCALARS, st.lists(TOML_SCALARS, max_size=2)))
    elif how == "resume":  # of a run that is not there
        table.update(resume=True, run_id="r")


@st.composite
def config_cases(draw: st.DrawFn) -> Case:
    """Valid settings at top level or in [run] (retry policy included), then a few broken: bad or random values,
    unknown keys, a bad [retry], both layouts mixed, a scalar 'run', or raw text; and a short command line."""
    layout = draw(st.sampled_from(["top", "run"]))
    table, outside = draw(settings_tables()), draw(settings_tables(min_size=1))
    hows = ["bad value", "random value", "unknown key", "bad retry", "unknown retry key", "retry not a table", "resume"]
    hows += ["mixed", "run scalar", "raw", "agent", "deep", "huge number"]
    breaks = [draw(st.sampled_from(hows)) for _ in range(draw(FEW))]
    for how in breaks:
        _break_table(draw, table, how)
    argv = ["--config", draw(st.sampled_from(["run.toml", f"{ROOT}/{WORK}/run.toml"]))]
    if draw(st.booleans()):
        argv += ["--limit", draw(st.sampled_from(["1", "2"]))]
    agent: str | None = draw(agents(calls=not _uses_embedding(argv, table, outside), model=False))
    if "raw" not in breaks and draw(st.booleans()):
        table["agent"] = draw(st.sampled_from(AGENTS_BAD)) if "agent" in breaks else agent
        agent = draw(st.sampled_from([None, agent]))  # given in the file, maybe also on the command line
    case = _finish(draw, argv, agent, bad_agent="agent" in breaks and "agent" not in table, out=1)
    if "raw" in breaks:
        text = draw(st.one_of(st.sampled_from(RAW_TOML), st.text(max_size=40), st.binary(max_size=20)))
    elif "mixed" in breaks or "run scalar" in breaks:
        run = draw(TOML_SCALARS) if "run scalar" in breaks else table
        text = tomli_w.dumps({**(outside if "mixed" in breaks else {}), "run": run})
    else:
        text = tomli_w.dumps({"run": table} if layout == "run" else table)
    if isinstance(text, str):
        text += (DEEP_TOML if "deep" in breaks else "") + (HUGE_TOML if "huge number" in breaks else "")
    case.files["run.toml"] = text
    return case


# --- task files --------------------------------------------------------------------------------------

Mutation = Callable[[st.DrawFn, list[Any]], None]


def _one(draw: st.DrawFn, items: list[Any]) -> Any:
    return items[draw(st.integers(0, len(items) - 1))] if items else None


def _turns(task: Any) -> list[dict[str, Any]]:
    turns = task.get("turns") if isinstance(task, dict) else None
    return [t for t in turns if isinstance(t, dict)] if isinstance(turns, list) else []


def _calls(task: Any) -> list[dict[str, Any]]:
    paths = [p for t in _turns(task) for p in [t.get("gold"), *(t.get("alternatives") or [])] if isinstance(p, list)]
    return [c for p in paths for c in p if isinstance(c, dict)]


def _containers(task: Any) -> list[dict[str, Any]]:
    """Every JSON object of a task: the task, its turns, their user intents, the gold calls and their arguments."""
    turns = _turns(task)
    users = [t["user"] for t in turns if isinstance(t.get("user"), dict)]
    calls = _calls(task)
    args = [c["arguments"] for c in calls if isinstance(c.get("arguments"), dict)]
    return [c for c in [task, *turns, *users, *calls, *args] if isinstance(c, dict)]


def drop_field(draw: st.DrawFn, tasks: list[Any]) -> None:
    if obj := _one(draw, _containers(_one(draw, tasks))):
        obj.pop(_one(draw, sorted(obj)), None)


def retype_field(draw: st.DrawFn, tasks: list[Any]) -> None:
    if obj := _one(draw, _containers(_one(draw, tasks))):
        obj[_one(draw, sorted(obj)) or "id"] = draw(JSON_GARBAGE)


def unknown_key(draw: st.DrawFn, tasks: list[Any]) -> None:
    if obj := _one(draw, _containers(_one(draw, tasks))):
        obj[draw(st.sampled_from(["colour", "Turns", "id_", ""]))] = 1


def unknown_tool(draw: st.DrawFn, tasks: list[Any]) -> None:
    if call := _one(draw, _calls(_one(draw, tasks))):
        call["name"] = draw(st.sampled_from(["launch_rocket", "", "SET_POWER", "set_power ", "list_devices"]))


def ghost_device(draw: st.DrawFn, tasks: list[Any]) -> None:
    if (call := _one(draw, _calls(_one(draw, tasks)))) and isinstance(call.get("arguments"), dict):
        call["arguments"]["device_id"] = draw(st.sampled_from(["ghost", "", "LIVING_TV", "living_tv", 5, None]))


def odd_argument(draw: st.DrawFn, tasks: list[Any]) -> None:
    if (call := _one(draw, _calls(_one(draw, tasks)))) and isinstance(args := call.get("arguments"), dict) and args:
        args[_one(draw, sorted(args))] = draw(st.sampled_from([math.nan, math.inf, 2**70, True, 50.0, "50", -1, None]))


def bad_role(draw: st.DrawFn, tasks: list[Any]) -> None:
    if call := _one(draw, _calls(_one(draw, tasks))):
        call["role"] = draw(st.sampled_from(["primary", "", None, "support", "core"]))


def empty_gold(draw: st.DrawFn, tasks: list[Any]) -> None:
    for turn in _turns(_one(draw, tasks)):  # a task with nothing to score
        turn.update(gold=[], alternatives=[])


def reorder_gold(draw: st.DrawFn, tasks: list[Any]) -> None:
    if (turn := _one(draw, _turns(_one(draw, tasks)))) and isinstance(turn.get("gold"), list):
        turn["gold"].reverse()  # e.g. set a brightness before switching the light on


def diverging_alternative(draw: st.DrawFn, tasks: list[Any]) -> None:
    if turn := _one(draw, _turns(_one(draw, tasks))):
        other = {"name": "set_power", "arguments": {"device_id": "office_heater", "on": True}}
        turn["alternatives"] = draw(st.sampled_from([[[other]], [[]], "x", [other]]))


def retarget_task(draw: st.DrawFn, tasks: list[Any]) -> None:
    if isinstance(task := _one(draw, tasks), dict):
        key = draw(st.sampled_from(["id", "world", "turns"]))
        values = {"id": ["", "sh-001", "a/b", "..", "\x00", "x" * 300], "world": ["kitchen", "", "Smart_Home"]}
        task[key] = draw(st.sampled_from(values.get(key, [[]])))


def duplicate_task(draw: st.DrawFn, tasks: list[Any]) -> None:
    if tasks:
        tasks.append(copy.deepcopy(_one(draw, tasks)))


def replace_task(draw: st.DrawFn, tasks: list[Any]) -> None:
    if tasks:
        tasks[draw(st.integers(0, len(tasks) - 1))] = draw(JSON_GARBAGE)


MUTATIONS: list[Mutation] = [
    drop_field,
    retype_field,
    unknown_key,
    unknown_tool,
    ghost_device,
    odd_argument,
    bad_role,
    reorder_gold,
    empty_gold,
    diverging_alternative,
    retarget_task,
    duplicate_task,
    replace_task,
]
JUNK_LINES = ["{", "not json", "[]", "null", "1", '{"id": "x"}', "\x00", '{"id": "a", "world": "smart_home"}', "NaN"]
JUNK_LINES += ["[" * 3000 + "]" * 3000, "1" * 5000]  # nested deeper than the recursion limit; too many digits


@st.composite
def task_file(draw: st.DrawFn, tasks: list[Any], broken: bool) -> tuple[str, str | bytes]:
    """(suffix, content) of a task file holding ``tasks``: .jsonl or .json, or (``broken``) a damaged form."""
    lines = [json.dumps(t) for t in tasks]
    form = draw(st.sampled_from(["jsonl+junk", "json-object", "json-cut", "other"] if broken else ["jsonl", "json"]))
    if form == "jsonl+junk":
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(JUNK_LINES)))
    if form.startswith("jsonl"):
        return ".jsonl", draw(st.sampled_from(["\n", "\r\n", "\n\n"])).join(lines) + "\n"
    body = json.dumps(tasks, indent=draw(st.sampled_from([None, 2])))
    if form == "json-object":
        body = json.dumps({"tasks": tasks})
    if form != "other":
        return ".json", body[:-1] if form == "json-cut" else body
    content = draw(st.one_of(st.sampled_from([body, ""]), st.just(b"\xff\xfe{")))  # the last one: not UTF-8
    return draw(st.sampled_from([".txt", ".JSONL", "", ".jsonl"])), content


def world_dir(draw: st.DrawFn, suffix: str, broken: bool) -> str:
    """world.toml of a world directory holding tasks{suffix}."""
    domain = draw(st.sampled_from(["nope", 5, "Smart_Home"] if broken else ["smart_home"]))
    bad = ["missing.jsonl", 3, "../existing.txt", "", "x" * 300]
    entry = draw(st.sampled_from(bad if broken else [f"tasks{suffix}", None]))
    extra = {"colour": "red"} if broken and draw(st.booleans()) else {}
    text = tomli_w.dumps({"domain": domain} | ({} if entry is None else {"tasks": entry}) | extra)
    return text + (draw(st.sampled_from(["", DEEP_TOML, HUGE_TOML])) if broken else "")


@st.composite
def task_file_cases(draw: st.DrawFn) -> Case:
    """Valid smart-home tasks, a few mutated, written as a task file (or in a world directory) in a valid or
    damaged form; run on a valid agent, with --limit, --trials and --task picked from the file's ids."""
    tasks: list[Any] = [
        copy.deepcopy(VALID_TASKS[i]) for i in draw(st.lists(st.integers(0, 9), min_size=1, max_size=3))
    ]
    ids = [t["id"] for t in tasks]
    for _ in range(draw(FEW)):
        draw(st.sampled_from(MUTATIONS))(draw, tasks)
    suffix, content = draw(task_file(tasks, broken=draw(FEW) >= 2))
    in_dir = draw(st.integers(0, 4)) == 0
    name = f"wd/tasks{suffix}" if in_dir else f"tasks{suffix}"
    files: dict[str, str | bytes] = {name: content}
    world = draw(st.sampled_from([name, f"{ROOT}/{WORK}/{name}"]))
    if in_dir:
        files["wd/world.toml"], world = world_dir(draw, suffix, broken=draw(FEW) == 3), "wd"
    argv = ["--world", world]
    if draw(st.booleans()):
        argv += ["--limit", draw(st.sampled_from(["1", "2", "0"]))]
    if draw(st.booleans()):
        argv += ["--trials", draw(st.sampled_from(["1", "2"]))]
    for task_id in draw(st.lists(st.sampled_from([*ids, "nope"]), max_size=2)):
        argv += ["--task", task_id]
    case = _finish(draw, argv, draw(agents(calls=True)))
    case.files.update(files)
    return case


# --- running a case ----------------------------------------------------------------------------------


@contextlib.contextmanager
def no_embedded_model() -> Iterator[None]:
    """Fail loudly (a generator bug, not a squall bug) if a case gets as far as the embedded llama.cpp server."""

    def refuse(*_: object) -> None:
        raise AssertionError("fuzz case reached the embedded model: the generator let a run go without an agent")

    with (
        mock.patch("sim.llm.local.server.local_model_available", refuse),
        mock.patch("sim.llm.local.server.LocalModelServer.__aenter__", refuse),
    ):
        yield


def prepare(root: Path, case: Case) -> Path:
    """Lay out the example's temp dir: fixtures and the case's files in ROOT/work; --out as the case says."""
    work = root / WORK
    (work / "emptydir").mkdir(parents=True)
    for name, content in {**FIXTURES, **case.files}.items():
        path = work / name
        path.parent.mkdir(parents=True, exist_ok=True)
        content = content.replace(ROOT, str(root)) if isinstance(content, str) else content
        path.write_bytes(content.encode() if isinstance(content, str) else content)
    if case.out_state == "empty":
        (work / "runs").mkdir()
    elif case.out_state == "file":
        (work / "runs").write_text("not a folder\n")
    return work


def snapshot(root: Path) -> set[tuple[str, int, int]]:
    """Every path under root; files and links with their size and mtime (folders' mtimes may move)."""
    found = set()
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            stat = (path := Path(folder, name)).lstat()
            changes = (0, 0) if path.is_dir() and not path.is_symlink() else (stat.st_size, stat.st_mtime_ns)
            found.add((str(path.relative_to(root)), *changes))
    return found


def squall(argv: list[str]) -> tuple[int | None, str, str]:
    """Exit code (None: an exception escaped run_cli), stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), no_embedded_model():
        try:
            code: int | None = run_cli(argv)
        except Exception:
            err.write("exception escaped run_cli:\n" + traceback.format_exc())
            code = None
    return code, out.getvalue(), err.getvalue()


def check(case: Case) -> str:
    """Run the case in a fresh temp dir and assert the property of the module docstring; returns the outcome
    (exit code, and where an error points) for hypothesis' statistics."""
    with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(prepare(Path(tmp), case)):
        before = snapshot(Path(tmp))
        code, out, err = squall(["run", *(a.replace(ROOT, tmp) for a in case.argv)])
        after = snapshot(Path(tmp))
    out, err = out.replace(tmp, ROOT), err.replace(tmp, ROOT)
    shown = short(f"{case}\nexit code: {code}\n--- stdout:\n{out[-3000:]}\n--- stderr:\n{err[-3000:]}")
    assert code is not None, f"an exception escaped run_cli (`squall` would exit 1 with a traceback)\n{shown}"
    assert code in (0, 2, EXIT_NOTHING_SCORED), shown
    if code == EXIT_NOTHING_SCORED:
        assert "every episode failed" in err, shown
    assert "Traceback" not in out + err, shown
    if code == 2:
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error:"), shown
        changed = sorted(path for path, *_ in after ^ before)
        assert not changed, f"{shown}\n--- created or changed under {ROOT}: {changed}"
    return f"exit {code}" + (f" {err.split(':')[1].strip()[:24]}" if code == 2 else "")


@settings(FUZZ, max_examples=100)
@given(command_lines())
def test_command_line_fuzz(case: Case) -> None:
    event(check(case))


@settings(FUZZ, max_examples=90)
@given(config_cases())
def test_config_file_fuzz(case: Case) -> None:
    event(check(case))


@settings(FUZZ, max_examples=90)
@given(task_file_cases())
def test_task_file_fuzz(case: Case) -> None:
    event(check(case))


TASK_LINE = json.dumps(VALID_TASKS[0]) + "\n"
DEEP_JSON = "[" * 3000 + "]" * 3000 + "\n"
FOUND: dict[str, Case] = {
    "long --out": Case(["--agent", "oracle", "--out", "x" * 300, "-q"]),
    "long --out on --resume": Case(["--agent", "oracle", "--resume", "--run-id", "r", "--out", "x" * 300, "-q"]),
    "long --world": Case(["--agent", "oracle", "--world", "x" * 300 + ".jsonl", "--out", OUT, "-q"]),
    "NUL in config out": Case(
        ["--config", "run.toml", "--agent", "oracle", "--limit", "1", "-q"], {"run.toml": 'out = "a\\u0000b"\n'}
    ),
    "config out not a string, resume": Case(
        ["--config", "run.toml", "--agent", "oracle", "-q"], {"run.toml": 'out = 5\nresume = true\nrun_id = "r"\n'}
    ),
    "deep config": Case(["--config", "run.toml", "--agent", "oracle", "--out", OUT, "-q"], {"run.toml": DEEP_TOML}),
    "huge int in config": Case(
        ["--config", "run.toml", "--agent", "oracle", "--out", OUT, "-q"], {"run.toml": HUGE_TOML}
    ),
    "deep .jsonl": Case(["--world", "t.jsonl", "--agent", "oracle", "--out", OUT, "-q"], {"t.jsonl": DEEP_JSON}),
    "deep .json": Case(["--world", "t.json", "--agent", "oracle", "--out", OUT, "-q"], {"t.json": DEEP_JSON}),
    "deep world.toml": Case(
        ["--world", "wd", "--agent", "oracle", "--out", OUT, "-q"],
        {"wd/world.toml": 'domain = "smart_home"\n' + DEEP_TOML, "wd/tasks.jsonl": TASK_LINE},
    ),
    "long tasks in world.toml": Case(
        ["--world", "wd", "--agent", "oracle", "--out", OUT, "-q"],
        {"wd/world.toml": f'domain = "smart_home"\ntasks = "{"x" * 300}"\n', "wd/tasks.jsonl": TASK_LINE},
    ),
}
"""Minimal inputs the fuzz found (or found near), checked on every run: each broke the property when written."""


@pytest.mark.parametrize("case", FOUND.values(), ids=FOUND.keys())
def test_found_inputs(case: Case) -> None:
    check(case)
