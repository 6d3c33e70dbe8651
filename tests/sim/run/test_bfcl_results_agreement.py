"""``squall import bfcl-results`` on result files squall writes in BFCL's format, for every category squall scores:
each entry's verdict equals the one bfcl-eval's own decoders and checkers give the same file.

Per category a spread of entries, each with one raw output: the gold and systematically damaged gold (both as a
function-calling model and as a prompting model would store it), and outputs BFCL cannot decode (arguments that are
not JSON or not an object, chat text, a broken call list), plus, multi-turn, a step that does not decode and a
result with the wrong number of turns. BFCL's score files are written from BFCL's verdicts beside the results, so
the command's printed agreement is checked too.
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Iterator
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("bfcl_eval")

from sim.cli.app import run_cli
from sim.run.bfcl_results import squall_verdicts
from sim.store.run_store import RunStore
from tests.judges.bfcl_ast_cases import AST_CATEGORIES, RELEVANCE_CATEGORIES, Entry, entries
from tests.judges.bfcl_ast_damage import damaged
from tests.judges.bfcl_multi_turn_cases import CATEGORIES as MULTI_TURN
from tests.judges.bfcl_multi_turn_cases import DAMAGE, explain, gold_output, tasks
from tests.sim.run.bfcl_results_cases import multi_turn_verdict, single_turn_verdict
from worlds.bfcl.result_encode import Style, encode_step, encode_turns, write_result_file

SINGLE_TURN = AST_CATEGORIES + RELEVANCE_CATEGORIES
PER_CATEGORY = 9
MULTI_PER_CATEGORY = 7
UNDECODABLE: list[Any] = [
    [{"f": "{not json"}],  # arguments that are not JSON
    [{"f": "[1, 2]"}],  # arguments that are not an object
    "I cannot help with that.",  # chat text from a prompting model
    "[f(a=1), g(",  # a broken call list
    [],  # no call at all
]


def _spread(items: list[Any], count: int) -> list[Any]:
    return items[:: max(1, len(items) // count)][:count]


def single_turn_output(entry: Entry, i: int) -> Any:
    """The i-th variant: gold, damaged gold (fc / prompting), or something BFCL cannot decode."""
    style: Style = "fc" if i % 2 == 0 else "prompting"
    if i < 2:
        return encode_step(entry.gold(), style)
    if i < 5:
        kinds = list(damaged(entry))
        return encode_step(kinds[random.Random(f"{entry.task.id}:{i}").randrange(len(kinds))][1], style)
    return UNDECODABLE[(i - 5) % len(UNDECODABLE)]


def multi_turn_output(task: Any, i: int) -> Any:
    style: Style = "fc" if i % 2 == 0 else "prompting"
    gold = gold_output(task)
    if i < 2:
        return encode_turns(gold, style)
    if i < 5:
        kind = sorted(DAMAGE)[i % len(DAMAGE)]
        changed = DAMAGE[kind](task, gold, random.Random(f"{task.id}:{i}")) or gold
        assert explain(task, changed) is None  # no disagreement by design (a function the turn does not offer)
        return encode_turns(changed, style)
    raw = encode_turns(gold, style)
    if i == 5:  # a first step that does not decode, then the gold: BFCL skips the step
        first = next(t for t, steps in enumerate(raw) if steps)
        raw[first].insert(0, [{"cd": "{broken"}])
        return raw
    return raw[:-1]  # a turn short: BFCL's force-terminated entry


def _write(folder: Path) -> dict[str, dict[str, bool | None]]:
    """Every category's result file and BFCL's score file; returns BFCL's verdicts, category -> id -> valid."""
    verdicts: dict[str, dict[str, bool | None]] = {}
    for category in SINGLE_TURN:
        chosen = _spread(list(entries(category)), PER_CATEGORY)
        rows = [(e.task.id, single_turn_output(e, i)) for i, e in enumerate(chosen)]
        found = {e.task.id: e for e in entries(category)}
        verdicts[category] = {i: single_turn_verdict(found[i], raw) for i, raw in rows}
        write_result_file(folder / "non_live", category, rows)
    for category in MULTI_TURN:
        pool = [t for t in tasks() if t.id.startswith(category + "_")]
        rows = [(t.id, multi_turn_output(t, i)) for i, t in enumerate(_spread(pool, MULTI_PER_CATEGORY))]
        verdicts[category] = {i: multi_turn_verdict(i, raw) for i, raw in rows}
        write_result_file(folder / "multi_turn", category, rows)
    for category, by_id in verdicts.items():
        lines = [{"accuracy": 0.0, "correct_count": 0, "total_count": len(by_id)}]
        lines += [{"id": i, "valid": False, "error_type": "some_error"} for i, valid in by_id.items() if not valid]
        (folder / f"BFCL_v4_{category}_score.json").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return verdicts


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, Any], str]]:
    root = tmp_path_factory.mktemp("bfcl-results")
    verdicts = _write(root / "model-x")
    printed = io.StringIO()
    with redirect_stdout(printed):
        code = run_cli(["import", "bfcl-results", str(root / "model-x"), "--out", str(root / "runs")])
    assert code == 0, printed.getvalue()
    yield root / "runs", verdicts, printed.getvalue()


@pytest.mark.parametrize("category", [*SINGLE_TURN, *MULTI_TURN])
@pytest.mark.slow
def test_squalls_verdict_equals_bfcls_on_every_entry(imported: tuple[Path, dict[str, Any], str], category: str) -> None:
    runs, verdicts, _ = imported
    squall = squall_verdicts(RunStore.open_existing(runs / category))
    bfcl = {i: v for i, v in verdicts[category].items() if v is not None}  # None: BFCL's checker raised
    assert squall.keys() == verdicts[category].keys()
    assert {i: squall[i] for i in bfcl} == bfcl
    assert True in bfcl.values() and False in bfcl.values()  # both verdicts tested in every category


def test_the_agreement_with_bfcls_score_files_is_printed(imported: tuple[Path, dict[str, Any], str]) -> None:
    _, verdicts, printed = imported
    compared = sum(1 for by_id in verdicts.values() for v in by_id.values() if v is not None)
    assert f"agreement: {compared}/{compared}\n" in printed, printed
    assert "disagreements" not in printed
    manifest = json.loads((imported[0] / "multi_turn_base" / "manifest.json").read_text())
    assert manifest["config"]["agent"] == "replay:model-x"
    assert manifest["source"]["result_file"].endswith("BFCL_v4_multi_turn_base_result.json")
    assert manifest["source"]["score_file"].endswith("BFCL_v4_multi_turn_base_score.json")


@pytest.mark.parametrize("category", ["live_simple", "live_irrelevance", "multi_turn_miss_func"])
def test_exported_as_bfcl_results_and_imported_again_the_verdicts_stay(
    imported: tuple[Path, dict[str, Any], str], category: str, tmp_path: Path
) -> None:
    """``squall export --format bfcl`` writes what squall recorded (undecodable outputs included) so that importing
    it gives every entry its verdict again."""
    runs = imported[0]
    with redirect_stdout(io.StringIO()):
        assert run_cli(["export", str(runs / category), "--format", "bfcl", "--out", str(tmp_path / "files")]) == 0
        assert run_cli(["import", "bfcl-results", str(tmp_path / "files"), "--out", str(tmp_path / "again")]) == 0
    before = squall_verdicts(RunStore.open_existing(runs / category))
    assert squall_verdicts(RunStore.open_existing(tmp_path / "again" / category)) == before


def test_an_imported_run_reports_like_any_run(imported: tuple[Path, dict[str, Any], str]) -> None:
    runs = imported[0]
    with redirect_stdout(io.StringIO()) as printed:
        assert run_cli(["report", str(runs / "simple_python")]) == 0
        assert run_cli(["leaderboard", str(runs / "live_multiple"), "--metric", "bfcl_ast"]) == 0
    assert "replay:model-x" in printed.getvalue()
