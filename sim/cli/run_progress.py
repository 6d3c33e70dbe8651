"""``squall run``'s progress bar: episodes done of planned, and the last one's core API accuracy; above it, once
the run folder exists, the run's id and folder."""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from judges.names import JudgeName

if TYPE_CHECKING:
    from rich.console import Console

    from sim.run.executors import EpisodeDone


class RunProgress:
    """A context manager showing the bar (nothing with ``quiet``); ``on_start`` and ``on_episode`` feed it."""

    def __init__(self, console: Console, quiet: bool) -> None:
        self.opening: str | None = None
        """Said once the run folder exists, above the bar (the run's id and folder)."""
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[last]}"),
            console=console,
            disable=quiet,
        )
        self._bar: TaskID | None = None

    def __enter__(self) -> RunProgress:
        self._progress.__enter__()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._progress.__exit__(kind, error, traceback)

    def on_warning(self, line: str) -> None:
        """A warning before the first episode, on stderr whether or not the bar shows (``quiet`` too)."""
        from rich.markup import escape

        from sim.cli.common import make_console

        make_console(stderr=True).print(f"[bold yellow]warning:[/] {escape(line)}", highlight=False, soft_wrap=True)

    def on_start(self, planned: int, done: int) -> None:
        if self.opening is not None:
            self._progress.console.print(self.opening, highlight=False, markup=False)
        self._bar = self._progress.add_task("episodes", total=planned, completed=done, last="")

    def on_episode(self, done: EpisodeDone) -> None:
        if self._bar is None:
            return
        accuracy = done.values.get(JudgeName.CORE_API_ACCURACY)
        shown = "failed" if accuracy is None else f"{accuracy:.2f}"
        self._progress.update(self._bar, advance=1, last=f"{done.episode_id}: {shown} ({done.termination})")
