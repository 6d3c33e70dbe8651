"""What the reports show of a run summary, as values: a table (``Section``) and the number formats every report
shares. Judges build their rows and tables with these; the terminal, Markdown and HTML renderers
(``sim.report``) only lay them out, so all three show the same numbers with the same denominators."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Section(BaseModel):
    """One table of a report: a title, its columns, its rows (cells already formatted), and lines under it."""

    model_config = ConfigDict(frozen=True)

    key: str = Field(description="A short stable name: the HTML anchor, and how tests find a section.")
    title: str = Field(description="The table's title, lower case (the Markdown heading capitalises it).")
    columns: tuple[str, ...] = Field(default=(), description="Column headers; every column after the first is numeric.")
    rows: tuple[tuple[str, ...], ...] = Field(default=(), description="Formatted cells, one tuple per row.")
    notes: tuple[str, ...] = Field(default=(), description="Sentences shown under the table.")

    @classmethod
    def of(
        cls, key: str, title: str, columns: Sequence[str], rows: Sequence[Sequence[str]], notes: Sequence[str] = ()
    ) -> Section:
        return cls(key=key, title=title, columns=tuple(columns), rows=tuple(tuple(r) for r in rows), notes=tuple(notes))


def heading(title: str) -> str:
    """A section's title as a heading: a first Latin letter capitalised, a symbol's left as it is (τ² stays τ²)."""
    return title[:1].upper() + title[1:] if title[:1].isascii() else title


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def ci_text(ci: Sequence[float] | None) -> str:
    return "" if not ci else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def ratio_ci(ci: Sequence[float] | None) -> str:
    return "" if not ci else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def score_ci(ci: Sequence[float] | None) -> str:
    return "" if not ci else f"[{ci[0]:.2f}, {ci[1]:.2f}]"


def mean_sd(spread: Mapping[str, Any]) -> str:
    if spread.get("mean") is None:
        return "n/a"
    sd = spread.get("sd")
    return pct(spread["mean"]) + ("" if sd is None else f" ± {100 * sd:.1f}")


def share_section(key: str, counts: Mapping[str, int] | None, title: str, label: str) -> list[Section]:
    """Counts of wrong goals per label (failure stage, error category) with their share; none when all are 0."""
    kept = {k: v for k, v in (counts or {}).items() if v}
    if not kept:
        return []
    total = sum(kept.values())
    return [Section.of(key, title, (label, "goals", "share"), [(k, str(n), pct(n / total)) for k, n in kept.items()])]


def plural(count: int, noun: str) -> str:
    """``1 goal``, ``2 goals``: a count with its noun, so a unit reads as its number says."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
