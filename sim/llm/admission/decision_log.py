"""Scheduler decisions (limit changes, pauses, rate limits, pacing summaries) as structured JSON lines.

Each DecisionLog owns its own structlog loggers: nothing is configured globally, so two runs in one process
(tests, a bench comparing runners) never write into each other's files. Only rare decisions are logged, never
every request, so the file write (a plain buffered write, flushed per line, never fsynced) stays off the hot path.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, TextIO


class DecisionLog:
    """JSON lines to ``path`` (appended); with ``console``, also a readable line per event on stderr
    (``console=None``: when stderr is a terminal). With neither it is a no-op."""

    def __init__(self, path: str | Path | None = None, *, console: bool | None = False) -> None:
        self.path = Path(path) if path is not None else None
        self._file: TextIO | None = None
        self._loggers: list[Any] = []
        # The file opens at the first event: a run's gateway exists before its run folder does.
        self._pending_file = self.path is not None
        if console if console is not None else sys.stderr.isatty():
            import structlog  # here and below, not at the top: a twentieth of every `squall` start-up

            renderer = structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
            self._loggers.append(_logger(sys.stderr, renderer))

    @property
    def enabled(self) -> bool:
        return bool(self._loggers) or self._pending_file

    def event(self, event: str, **fields: Any) -> None:
        """One decision: ``event`` names it, ``fields`` are numbers and short strings (``endpoint`` among them)."""
        if self._pending_file and self.path is not None:
            self._pending_file = False
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("a", encoding="utf-8")
            import structlog

            self._loggers.append(_logger(self._file, structlog.processors.JSONRenderer()))
        for logger in self._loggers:
            logger.info(event, **fields)

    def close(self) -> None:
        self._loggers.clear()
        if self._file is not None:
            self._file.close()
            self._file = None


class PacingStats:
    """Admissions since the last pacing summary: one line every few seconds instead of one per request."""

    __slots__ = ("admitted", "max_wait", "rate_limited", "since", "tokens", "waited")

    def __init__(self, now: float) -> None:
        self.since = now
        self.admitted = self.rate_limited = self.tokens = 0
        self.waited = self.max_wait = 0.0

    def admit(self, waited_s: float) -> None:
        self.admitted += 1
        if waited_s:
            self.waited += waited_s
            self.max_wait = max(self.max_wait, waited_s)

    def report(self, log: DecisionLog, endpoint: str, now: float, **state: Any) -> None:
        if self.admitted:
            log.event(
                "pacing", endpoint=endpoint, admitted=self.admitted, rate_limited=self.rate_limited,
                tokens_per_min=round(self.tokens * 60 / max(now - self.since, 1e-9)),
                mean_wait_s=round(self.waited / self.admitted, 3), max_wait_s=round(self.max_wait, 3), **state,
            )  # fmt: skip


def _logger(file: TextIO, renderer: Any) -> Any:
    import structlog

    return structlog.wrap_logger(
        structlog.PrintLogger(file),
        processors=[structlog.processors.TimeStamper(fmt="iso", utc=True), renderer],
        wrapper_class=structlog.BoundLogger,
        cache_logger_on_first_use=True,
    )
