"""Mutated ToolBench tool and query files: each either imports into a loadable folder or exits 2 with problems
listed, nothing written, no traceback (the command's function called directly, as in test_openapi_mutations)."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.cli.import_toolbench import toolbench_command
from tests.worlds.simulated_import.test_openapi_mutations import JSON_VALUES, _places, delete_at, set_at
from tests.worlds.simulated_import.test_toolbench_import import FORECAST, YOUTUBE, query
from worlds.simulated.operations import ApiSpec
from worlds.task_files import load_tasks


def _mutate(data: st.DataObject, document: Any) -> None:
    for _ in range(data.draw(st.integers(1, 3))):
        places = _places(document)
        if not places:
            return
        place = list(data.draw(st.sampled_from(places)))
        if data.draw(st.booleans()):
            delete_at(document, place)
        else:
            set_at(document, place, copy.deepcopy(data.draw(JSON_VALUES)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_mutation_imports_or_is_refused_cleanly(data: st.DataObject) -> None:
    tool = copy.deepcopy(YOUTUBE)
    queries: Any = [query(1, "find cats", [["Simple YouTube Search", "Search"]], [copy.deepcopy(FORECAST)])]
    _mutate(data, data.draw(st.sampled_from([tool, queries])))
    root = Path(tempfile.mkdtemp(prefix="squall-toolbench-"))
    try:
        (root / "tool.json").write_text(json.dumps(tool), encoding="utf-8")
        (root / "q.json").write_text(json.dumps(queries), encoding="utf-8")
        out = root / "world"
        err = io.StringIO()
        code = 0
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            try:
                toolbench_command(root / "tool.json", out, queries=root / "q.json")
            except typer.Exit as exit_:
                code = exit_.exit_code
        if code == 0:
            spec = ApiSpec.model_validate_json((out / "operations.json").read_text(encoding="utf-8"))
            names = {operation.name for operation in spec.operations}
            for task in load_tasks(out / "tasks.jsonl"):
                assert {call.name for call in task.goals[0].gold} <= names
        else:
            lines = err.getvalue().strip().splitlines()
            assert code == 2 and lines and all(line.startswith("error: ") for line in lines), err.getvalue()
            assert "Traceback" not in err.getvalue() and not out.exists()
            assert sorted(path.name for path in root.iterdir()) == ["q.json", "tool.json"]
    finally:
        shutil.rmtree(root, ignore_errors=True)
