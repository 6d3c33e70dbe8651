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
