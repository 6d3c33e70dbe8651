"""Inline SVG charts for the HTML report: horizontal bars, drawn in Python so the page needs no chart library
and no network. Every label goes through ``html.escape``; sizes are fixed so the page lays out before it paints."""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

PALETTE = ("#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb")
"""Paul Tol's bright scheme: distinguishable for the common colour-vision deficiencies."""

ROW_H = 22
LABEL_W = 210
BAR_W = 290
VALUE_W = 70


def _fmt(value: float, percent: bool) -> str:
    if not math.isfinite(value):
        return "n/a"
    if percent:
        return f"{100 * value:.1f}%"
    if value == int(value):
        return f"{int(value):,}"
    return f"{value:,.4g}"


def _label(text: str, limit: int = 32) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def bar_chart(
    rows: Sequence[tuple[str, Sequence[float | None]]],
    series: Sequence[str],
    title: str,
    percent: bool = True,
) -> str:
    """One group of horizontal bars per row, one bar per series (``series`` names them in the legend).

    Percent charts share a 0-100% scale so two charts compare by eye; count charts scale to their maximum.
    A value of None is drawn as 'n/a' with no bar (absent, not zero)."""
    n = max(1, len(series))
    group_h = ROW_H * n + 8
    legend_h = 24 if n > 1 else 0
    top = 28 + legend_h
    height = top + group_h * len(rows) + 8
    width = LABEL_W + BAR_W + VALUE_W
    finite = [v for _, vs in rows for v in vs if v is not None and math.isfinite(v)]
    peak = 1.0 if percent else max([*finite, 0.0]) or 1.0
    out = [
        f'<svg class="chart" role="img" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" aria-label="{escape(title)}">',
        f'<text x="0" y="16" class="chart-title">{escape(title)}</text>',
    ]
    for i, name in enumerate(series if n > 1 else ()):
        x = LABEL_W + i * 120
        out.append(f'<rect x="{x}" y="{28}" width="12" height="12" fill="{PALETTE[i % len(PALETTE)]}"/>')
        out.append(f'<text x="{x + 16}" y="{38}" class="chart-legend">{escape(name)}</text>')
    for r, (label, values) in enumerate(rows):
        y0 = top + r * group_h
        out.append(
            f'<text x="{LABEL_W - 8}" y="{y0 + group_h / 2 + 4:.0f}" text-anchor="end" class="chart-label">'
            f"<title>{escape(label)}</title>{escape(_label(label))}</text>"
        )
        for i, value in enumerate(values):
            y = y0 + i * ROW_H + 2
            colour = PALETTE[i % len(PALETTE)]
            if value is None or not math.isfinite(value):
                out.append(f'<text x="{LABEL_W + 4}" y="{y + 14}" class="chart-value">n/a</text>')
                continue
            w = max(0.0, min(1.0, value / peak)) * BAR_W
            out.append(f'<rect x="{LABEL_W}" y="{y}" width="{w:.1f}" height="{ROW_H - 4}" fill="{colour}" rx="2"/>')
            out.append(
                f'<text x="{LABEL_W + w + 4:.1f}" y="{y + 14}" class="chart-value">{_fmt(value, percent)}</text>'
            )
    out.append(f'<line x1="{LABEL_W}" y1="{top - 2}" x2="{LABEL_W}" y2="{height - 6}" class="chart-axis"/>')
    out.append("</svg>")
    return "".join(out)


AXIS_W = 300
"""Width of an interval chart's 0-100% axis."""


def interval_chart(
    rows: Sequence[tuple[str, float | None, Sequence[float] | None, int]],
    title: str,
    axis_label: str,
) -> str:
    """One bar per row on a 0-100% axis with ticks, its 95% interval as an error bar and its n beside it.

    ``rows`` are (label, value in [0, 1] or None, (low, high) or None, n). A value of None is 'n/a' (no bar)."""
    top, bottom = 26, 34
    height = top + ROW_H * len(rows) + bottom
    x0, width = LABEL_W, LABEL_W + AXIS_W + 140
    out = [
        f'<svg class="chart" role="img" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" aria-label="{escape(title)}">',
        f'<text x="0" y="16" class="chart-title">{escape(title)}</text>',
    ]
    axis_y = top + ROW_H * len(rows)
    for tick in (0, 25, 50, 75, 100):
        x = x0 + AXIS_W * tick / 100
        out.append(f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{axis_y}" class="chart-grid"/>')
        out.append(f'<text x="{x:.1f}" y="{axis_y + 14}" text-anchor="middle" class="chart-value">{tick}%</text>')
    out.append(f'<line x1="{x0}" y1="{axis_y}" x2="{x0 + AXIS_W}" y2="{axis_y}" class="chart-axis-dark"/>')
    out.append(
        f'<text x="{x0 + AXIS_W / 2:.0f}" y="{axis_y + 29}" text-anchor="middle" class="chart-legend">'
        f"{escape(axis_label)} (bars: 95% interval)</text>"
    )
    for r, (label, value, ci, n) in enumerate(rows):
        y = top + r * ROW_H
        out.append(
            f'<text x="{x0 - 8}" y="{y + 15}" text-anchor="end" class="chart-label">'
            f"<title>{escape(label)}</title>{escape(_label(label))}</text>"
        )
        right = f"n={n}"
        if value is not None and math.isfinite(value):
            w = max(0.0, min(1.0, value)) * AXIS_W
            out.append(f'<rect x="{x0}" y="{y + 3}" width="{w:.1f}" height="{ROW_H - 6}" fill="{PALETTE[0]}" rx="2"/>')
            right = f"{_fmt(value, True)}  n={n}"
        if ci is not None and len(ci) == 2:
            lo, hi = (x0 + AXIS_W * max(0.0, min(1.0, float(v))) for v in ci)
            mid = y + ROW_H / 2
            out.append(f'<line x1="{lo:.1f}" y1="{mid}" x2="{hi:.1f}" y2="{mid}" class="chart-err"/>')
            for x in (lo, hi):
                out.append(f'<line x1="{x:.1f}" y1="{mid - 5}" x2="{x:.1f}" y2="{mid + 5}" class="chart-err"/>')
        out.append(f'<text x="{x0 + AXIS_W + 8}" y="{y + 15}" class="chart-value">{escape(right)}</text>')
    out.append("</svg>")
    return "".join(out)
