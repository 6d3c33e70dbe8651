"""`squall import SOURCE`: the sources come from one table, each its own command with its own options."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Annotated

import pytest
import typer
from typer.testing import CliRunner

import sim.cli.import_source as import_source
from sim.cli.app import app

runner = CliRunner()


def test_the_import_group_lists_every_table_entry() -> None:
    assert list(import_source.IMPORTERS) == ["spider", "bird", "openapi", "toolbench", "bfcl-results"]
    result = runner.invoke(app, ["import", "--help"])
    assert result.exit_code == 0 and all(source in result.output for source in import_source.IMPORTERS)
    unknown = runner.invoke(app, ["import", "sparql", "--out", "x"])
    assert unknown.exit_code == 2 and "sparql" in unknown.output + (unknown.stderr if unknown.stderr_bytes else "")


def test_a_new_source_is_one_table_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def toy(out: Annotated[Path, typer.Option("--out")], level: Annotated[int, typer.Option("--level")] = 1) -> None:
        """A toy benchmark."""
        out.write_text(f"level {level}\n")

    monkeypatch.setattr(import_source, "IMPORTERS", MappingProxyType({**import_source.IMPORTERS, "toy": toy}))
    group = import_source._import_app()
    result = runner.invoke(group, ["toy", "--out", str(tmp_path / "w"), "--level", "3"])
    assert result.exit_code == 0 and (tmp_path / "w").read_text() == "level 3\n"
    assert "--db-dir" in runner.invoke(group, ["spider", "--help"]).output  # the SQL sources keep their options
