"""``squall export --format bfcl RUN``: a run on BFCL worlds as BFCL result files (``BFCL_v4_<category>_result.json``),
the calls the agent made written as a function-calling model's outputs, so BFCL's own ``bfcl evaluate`` (or
``squall import bfcl-results``) can score them.

Per entry, the first trial (BFCL holds one output per entry). Single-turn: every call the agent made for the goal, in
order, as one response (what the ``bfcl_ast`` judge scores); a call whose arguments could not be read makes the
output one BFCL cannot decode. Multi-turn: per played turn, per model response, its calls (a call of a function the
turn did not offer too: BFCL's executor runs those and they err).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judges.bfcl.bfcl_ast import UNREADABLE_CODES, category_of
from judges.bfcl.bfcl_multi_turn import CALL_ERROR_CODES, bfcl_multi_turn_category
from judges.common.trace_view import agent_events, played
from sim.core import EpisodeResult
from sim.report.export import ExportError
from sim.store.run_store import RunStore
from worlds.bfcl.result_decode import Call
from worlds.bfcl.result_encode import encode_step, encode_turns, write_result_file

UNDECODABLE = "[a call whose arguments could not be read"
"""The output written where squall recorded an unreadable call: BFCL's decoder fails on it too."""


def responses(result: EpisodeResult, goal: int) -> tuple[list[list[Call]], bool]:
    """The goal's model responses with their calls, and whether some call could not be read."""
    steps: dict[tuple[int, int], list[Call]] = {}
    unreadable = False
    for ev in agent_events(result, goal):
        named = ev.kind == "tool_call" or (ev.kind == "error" and ev.code in CALL_ERROR_CODES)
        if named and ev.call is not None:
            steps.setdefault((ev.turn, ev.step), []).append((ev.call.name, dict(ev.call.arguments)))
        elif ev.kind == "error" and ev.code in UNREADABLE_CODES:
            unreadable = True
    return list(steps.values()), unreadable


def raw_output(result: EpisodeResult) -> tuple[str, Any] | None:
    """(category, the output as BFCL's result file holds it); None for a task that is not a BFCL entry."""
    multi = bfcl_multi_turn_category(result.task)
    if multi is not None:
        goals = [g for g in range(len(result.task.goals)) if played(result, g)]
        return multi, encode_turns([responses(result, g)[0] for g in goals])
    single = category_of(result.task.tags)
    if single is None:
        return None
    steps, unreadable = responses(result, 0)
    return single, UNDECODABLE if unreadable else encode_step([c for step in steps for c in step])


def export_bfcl(run_dir: Path, out: Path) -> list[Path]:
    """Write the run's result files under ``out``; raises ExportError when the run holds no BFCL entry."""
    by_category: dict[str, list[tuple[str, Any]]] = {}
    for result in RunStore.open_existing(run_dir).iter_episodes():
        found = raw_output(result) if result.trial == 0 else None
        if found is not None:
            by_category.setdefault(found[0], []).append((result.task_id, found[1]))
    if not by_category:
        raise ExportError(f"{run_dir}: no episode of a BFCL entry (run on a bfcl: world)")
    return [write_result_file(out, category, rows) for category, rows in sorted(by_category.items())]
