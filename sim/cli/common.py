"""What every command shares: the console, the one-line failure, and which errors are bad input."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, NoReturn

import typer

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress


def make_console(stderr: bool = False) -> Console:
    from rich.console import Console

    return Console(stderr=stderr)


def stderr_progress() -> Progress:
    """A progress display of named bars (done / total, time elapsed) on stderr: stdout stays the command's report
    (or its one JSON document)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    return Progress(*columns, console=make_console(stderr=True))


MAX_ERROR_CHARS = 2000
MAX_ARGUMENT_CHARS = 65_536
"""The longest command-line argument accepted: paths, model names and stressor lists are far shorter."""

EXIT_NOTHING_SCORED = 3
"""Beside 2 (bad input: one line, nothing written), 130 (Ctrl-C) and 143 (SIGTERM): ``squall run`` stored episodes
but every one failed (provider, user or harness faults): nothing was scored."""


def fail(message: str, code: int = 2) -> NoReturn:
    """One line on stderr: 'error: <where>: <what>'. Never a traceback."""
    from rich.markup import escape

    one_line = " ".join(message.split())
    if len(one_line) > MAX_ERROR_CHARS:  # a 10 MB option value is not echoed back whole
        one_line = f"{one_line[:MAX_ERROR_CHARS]}… ({len(one_line):,} characters in all)"
    make_console(stderr=True).print(f"[bold red]error:[/] {escape(one_line)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def user_errors() -> tuple[type[Exception], ...]:
    """Errors that mean bad input (config, task files, run dirs): a message and exit 2, no traceback."""
    from sim.config.run_config import ConfigError
    from sim.core.bounded_read import InputFileError
    from sim.mockllm.config import MockConfigError
    from sim.store.run_store import StoreError
    from worlds.registry import WorldLoadError
    from worlds.task_files import TaskFileError

    return (ConfigError, StoreError, WorldLoadError, TaskFileError, MockConfigError, InputFileError)


@contextmanager
def terminate_as_interrupt() -> Iterator[list[int]]:
    """SIGTERM (a scheduler's stop, ``kill``) handled as Ctrl-C: the run finishes its bookkeeping and writes the
    summary instead of dying at once. The handler re-sends SIGINT, so asyncio's own Ctrl-C path (cancel the run,
    then raise KeyboardInterrupt) does the work; the yielded list is non-empty once SIGTERM came (exit 143)."""
    received: list[int] = []

    def on_term(signum: int, frame: object) -> None:
        received.append(signum)
        os.kill(os.getpid(), signal.SIGINT)

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield received
    finally:
        signal.signal(signal.SIGTERM, previous)
