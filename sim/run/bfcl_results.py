"""BFCL result files as squall runs (``squall import bfcl-results``): one run per category, its agent the model's
recorded outputs played again (``sim.agents.replay``) on squall's BFCL world, judged by squall's judges like any run,
beside BFCL's own verdicts where its score files are found.

Everything is read and checked first (every file, line and id; the run folders free): bad input writes nothing.
Each run is ``OUT/<category>``; its manifest's ``source`` names the result file, the model and the score file.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from judges.names import JudgeName
from sim.agents.replay import Recording, ReplayStep, replay_factory
from sim.config.run_config import RunConfig
from sim.core import AgentFactory
from sim.run.runner import open_run
from sim.store.run_store import RunStore, StoreError
from worlds.bfcl.categories import MULTI_TURN
from worlds.bfcl.result_decode import Step, decode_multi, decode_single
from worlds.bfcl.result_files import (
    BfclResultError,
    ResultFile,
    ScoreFile,
    find_result_files,
    find_score_files,
    read_result_file,
    read_score_file,
)
from worlds.bfcl.source import data_file, read_lines

if TYPE_CHECKING:
    from sim.llm.gateway import Gateway

STEP_LIMIT = 21
"""BFCL's model responses per turn (20 with calls, then an answer): the runs' --max-steps at least."""
MAX_TURNS = 50
"""Above any BFCL entry's turn count: squall's own limit must not cut what BFCL played."""


@dataclass(frozen=True)
class CategoryResult:
    """One category imported: its run, and each entry's verdict by squall and (where known) by BFCL."""

    category: str
    run_dir: Path
    squall: Mapping[str, bool | None]
    """Entry id -> squall's verdict (None: no verdict, e.g. the episode failed)."""
    bfcl: Mapping[str, bool] | None
    """Entry id -> BFCL's verdict, from its score file; None: no score file for the category."""
    notes: tuple[str, ...] = ()

    def disagreements(self) -> list[str]:
        if self.bfcl is None:
            return []
        return [i for i, verdict in self.squall.items() if i in self.bfcl and verdict != self.bfcl[i]]


@dataclass(frozen=True)
class Planned:
    """One category checked and ready to play: its file, each entry's recording, BFCL's score file if found."""

    file: ResultFile
    recordings: dict[str, Recording]
    scores: ScoreFile | None
    max_steps: int


def plan_import(path: Path, out: Path, scores: Path | None) -> list[Planned]:
    """Every result file under ``path`` read, decoded and checked; BFCL's score files found (under ``scores``, else
    beside the results). Raises BfclResultError (or StoreError: a run folder exists) before anything is written."""
    files = [read_result_file(p) for p in find_result_files(path)]
    by_category: dict[str, ResultFile] = {}
    for f in files:
        if f.category in by_category:
            raise BfclResultError(f"{f.path}: category {f.category} also in {by_category[f.category].path}")
        by_category[f.category] = f
    score_paths = find_score_files(scores if scores is not None else (path if path.is_dir() else path.parent))
    planned = []
    for category, f in by_category.items():
        if (out / category).exists():
            raise StoreError(f"{out / category} already exists; choose another --out")
        recordings = _recordings(f)
        score = read_score_file(score_paths[category]) if category in score_paths else None
        if score is not None and score.total != len(f.entries):
            note = f"{score.path}: BFCL scored {score.total} entries, {f.path} holds {len(f.entries)}"
            f = replace(f, notes=(*f.notes, note))
        planned.append(Planned(f, recordings, score, _max_steps(recordings.values())))
    return planned


def _recordings(f: ResultFile) -> dict[str, Recording]:
    turns = {str(e["id"]): len(e.get("question") or []) for e in read_lines(data_file(f.category))}
    out = {}
    for entry in f.entries:
        if entry.id not in turns:
            raise BfclResultError(f"{entry.where}: field 'id': {entry.id} is not an entry of BFCL's {f.category} data")
        if f.category in MULTI_TURN:
            decoded = decode_multi(entry.result, turns[entry.id])
            out[entry.id] = Recording(
                tuple(tuple(_step(s) for s in turn) for turn in decoded.turns), unplayable=decoded.error
            )
        else:
            out[entry.id] = Recording(((_step(decode_single(entry.result)),),))
    return out


def _step(step: Step) -> ReplayStep:
    return ReplayStep(tuple(step.calls), step.error)


def _max_steps(recordings: Iterable[Recording]) -> int:
    """Enough room per turn for every recorded response and call (the judge applies BFCL's own step limit)."""
    most = [max(len(steps), sum(len(s.calls) for s in steps)) for r in recordings for steps in r.goals]
    return max([STEP_LIMIT, *most])


def run_config(planned: Planned, out: Path, model: str) -> RunConfig:
    category = planned.file.category
    return RunConfig(
        world=f"bfcl:{category}",
        agent=f"replay:{model}",
        tasks=[e.id for e in planned.file.entries],
        user="scripted",
        out=out,
        run_id=category,
        label=model[:60],
        max_steps=planned.max_steps,
        max_turns=MAX_TURNS,
    )


async def import_category(planned: Planned, out: Path, model: str) -> CategoryResult:
    """Play one category's recordings as a run under ``out``, and gather both sides' verdicts."""
    config = run_config(planned, out, model)
    factory = replay_factory(f"replay:{model}", planned.recordings)

    @asynccontextmanager
    async def opener(_gateway: Gateway) -> AsyncIterator[AgentFactory]:
        yield factory

    async with open_run(config, agent=opener) as run:
        store, _summary = await run.play()
    store.update_manifest(
        {
            "source": {
                "kind": "bfcl-results",
                "result_file": str(planned.file.path),
                "model_name": model,
                "score_file": None if planned.scores is None else str(planned.scores.path),
                "notes": list(planned.file.notes),
            }
        }
    )
    return CategoryResult(
        planned.file.category,
        store.root,
        squall_verdicts(store),
        None if planned.scores is None else _bfcl_verdicts(planned),
        planned.file.notes,
    )


def squall_verdicts(store: RunStore) -> dict[str, bool | None]:
    """Task id -> the BFCL judge's verdict in the run's newest score set."""
    judges = {JudgeName.BFCL_AST, JudgeName.BFCL_MULTI_TURN}
    verdicts: dict[str, bool | None] = {}
    for score in store.iter_scores(store.newest_score_set()):
        if score.judge in judges and (score.value is not None or score.task_id not in verdicts):
            verdicts[score.task_id] = None if score.value is None else score.value == 1.0
    return verdicts


def _bfcl_verdicts(planned: Planned) -> dict[str, bool]:
    assert planned.scores is not None
    return {e.id: e.id not in planned.scores.failures for e in planned.file.entries}
