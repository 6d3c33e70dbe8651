"""The command line driven in this process, as a user would, and checks of a clean failure."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from typer.testing import CliRunner

from sim.cli.app import app, run_cli

runner = CliRunner()


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output + (result.stderr if result.stderr_bytes else "")


def squall(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run_cli(list(argv))
    return code, out.getvalue(), err.getvalue()


def assert_clean_failure(code: int, err: str, *needles: str) -> str:
    """Exit 2, one line on stderr naming what is wrong, no traceback."""
    line = " ".join(err.split())
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert line.startswith("error:") and "Traceback" not in err
    for needle in needles:
        assert needle in line, (needle, line)
    return line


def tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))
