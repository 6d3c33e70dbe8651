"""``RUN_DIR/report.html``: the run summary as one self-contained page — headline numbers with their intervals and
denominators, inline SVG charts, the tables of the terminal report, and an episode viewer.

Works offline: the CSS and the viewer's JS are package files inlined into the page, charts are SVG drawn here,
and nothing is fetched. Every piece of text goes through ``html.escape``; the episodes are embedded as JSON in a
``<script type="application/json">`` tag with ``<``, ``>`` and ``&`` escaped so no text can close the tag."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from html import escape
from importlib.resources import files
from pathlib import Path
from typing import Any

from judges.common.summary_view import Section, heading
from judges.names import JudgeName
from judges.run.run_summary import RunSummary
from sim.core.files import write_text_atomic
from sim.report.episodes import DEFAULT_CAP, EpisodeSample, collect_episodes
from sim.report.sections import build_sections, page_title
from sim.report.svg import bar_chart
from sim.store.run_store import RunStore, StoreError

REPORT = "report.html"
MAX_ROWS = 500
"""Rows of one table on the page, at most (every row is in summary.json)."""


def _asset(name: str) -> str:
    return files("sim.report").joinpath(name).read_text(encoding="utf-8")


def table(header: Sequence[str], rows: Sequence[Sequence[str]], cls: str = "") -> str:
    """An escaped HTML table; every column after the first is numeric (right-aligned)."""
    head = "".join(f"<th{'' if i == 0 else ' class=num'}>{escape(h)}</th>" for i, h in enumerate(header))
    body = "".join(
        "<tr>" + "".join(f"<td{'' if i == 0 else ' class=num'}>{escape(c)}</td>" for i, c in enumerate(r)) + "</tr>"
        for r in rows
    )
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _counts_chart(counts: Mapping[str, int] | None, title: str) -> tuple[str, str]:
    rows = [(k, [float(v)]) for k, v in sorted((counts or {}).items(), key=lambda kv: -kv[1]) if v]
    return (bar_chart(rows[:30], ["count"], title, percent=False), "") if rows else ("", f"{title}: none counted.")


def plots(summary: RunSummary) -> tuple[list[str], list[str]]:
    """(charts, one-line notes for the charts left out because they had no data)."""
    charts: list[str] = []
    notes: list[str] = []

    def add(chart: str, note: str) -> None:
        if chart:
            charts.append(chart)
        else:
            notes.append(note)

    stressors = summary.stressors or {}
    if stressors.get("by_type"):
        mode = stressors.get("mode", "isolated")
        metric = "BFCL AST verdict" if stressors.get("metric") == JudgeName.BFCL_AST else "accuracy"
        rows = [(r["name"], [r.get("before"), r.get("after")]) for r in stressors["by_type"]]
        add(bar_chart(rows, ["without", "with"], f"{metric} per stressor type, {mode}"), "")
        scen = [(r["name"], [r.get("before"), r.get("after")]) for r in stressors.get("by_scenario") or ()]
        add(bar_chart(scen[:40], ["without", "with"], f"{metric} per scenario, without vs with"), "")
    elif stressors.get("unavailable"):
        notes.append(f"Stressor charts: {stressors['unavailable']}")
    else:
        notes.append(
            "Per-stressor accuracy with vs without: not measured (needs --stressor-mode isolated; a cumulative or "
            "incremental run stacks the stressors, so each alone has no baseline pair)."
        )
    steps = (summary.incremental or {}).get("rows") or []
    if steps:  # incremental: one bar per prefix, in the order the items were added
        rows = [(f"{r['stressors']} ({r['goals']} goals)", [r.get("accuracy")]) for r in steps]
        add(bar_chart(rows, ["goal accuracy"], "stressors added one by one: accuracy per prefix"), "")
    stack = (summary.stacking or {}).get("by_fired") or []
    if stack:  # cumulative: what compounds is what fires on the same goal
        rows = [(f"{r['fired']} fired ({r['goals']} goals)", [r.get("accuracy")]) for r in stack]
        add(bar_chart(rows, ["goal accuracy"], "stacked stressors: accuracy by scenarios fired on the goal"), "")
    hurt = (summary.stacking or {}).get("by_scenario") or []
    if hurt:  # beside it: which scenario hurt, most harmful first (observational: see the table's notes)
        rows = [(r["scenario"], [r["touched"]["accuracy"], r["untouched"]["accuracy"]]) for r in hurt[:40]]
        title = "stacked stressors: accuracy on the goals each scenario fired on vs its tasks' other goals"
        add(bar_chart(rows, ["touched", "untouched"], title), "")
    add(*_counts_chart(summary.judged.get("failure_stages"), "failure stages (wrong goals)"))
    add(*_counts_chart(summary.judged.get("error_categories"), "error categories (wrong goals)"))
    add(*_counts_chart(summary.error_codes, "error codes"))
    roles = {k: v for k, v in summary.usage_by_role.items() if v.requests}
    if roles:
        tokens = [(r, [float(u.input_tokens), float(u.output_tokens)]) for r, u in roles.items()]
        charts.append(bar_chart(tokens, ["input tokens", "output tokens"], "tokens per role", percent=False))
        cost = [(r, [float(u.cost)]) for r, u in roles.items()]
        charts.append(bar_chart(cost, ["USD"], "cost per role (USD)", percent=False))
    else:
        notes.append("Tokens and cost per role: no model calls were made (scripted agent and user).")
    users = (summary.users or {}).get("by_user") or []
    if users:
        rows = [(u["user"], [u.get("goal_accuracy"), u.get(JudgeName.CONVERSATION_SUCCESS)]) for u in users]
        charts.append(bar_chart(rows, ["goal accuracy", "success"], "per user"))
    return charts, notes


def section_html(section: Section) -> str:
    """A section as a heading, its table (the first ``MAX_ROWS`` rows) and its notes."""
    out = [f"<h2 id={escape(section.key)}>{escape(heading(section.title))}</h2>"]
    if section.columns:
        out.append(table(section.columns, section.rows[:MAX_ROWS], section.key))
    notes = list(section.notes)
    if len(section.rows) > MAX_ROWS:
        notes.append(f"First {MAX_ROWS} of {len(section.rows)} rows (all are in summary.json).")
    out += [f'<p class="note">{escape(n)}</p>' for n in notes]
    return "".join(out)


def _viewer(sample: EpisodeSample) -> str:
    data = json.dumps(sample.episodes, separators=(",", ":"), default=str)
    # Inside <script> only "</" could end the element; escaping every <, > and & (valid JSON string escapes)
    # also rules out "<!--" and keeps the HTML parser out of the data entirely.
    data = data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    shown = len(sample.episodes)
    order = "unscored failures first, then the lowest-scoring, then the rest in run order"
    return (
        f'<h2 id=episodes>Episodes</h2><p class="note" id="ep-shown">Showing {shown} of {sample.total} episodes'
        f"{f' ({order})' if shown < sample.total else ''}. Arrow keys step through the list.</p>"
        '<div class="controls"><input id="ep-filter-task" placeholder="filter by task or episode id">'
        '<select id="ep-filter-term"><option value="">any termination</option></select>'
        '<select id="ep-filter-outcome"><option value="">any outcome</option><option value="passed">passed</option>'
        '<option value="wrong">not passed</option><option value="failed">failed (not scored)</option>'
        '<option value="unscored">no verdict</option></select>'
        '<button id="ep-prev" type="button">◀ prev</button><button id="ep-next" type="button">next ▶</button>'
        '<span class="note" id="ep-count"></span></div>'
        '<div id="viewer"><ul id="ep-list"></ul><div id="ep-detail"></div></div>'
        f'<script type="application/json" id="episodes-data">{data}</script>'
    )


def render_html(
    summary: RunSummary,
    sample: EpisodeSample,
    manifest: dict[str, Any] | None = None,
    comparison_html: str = "",
) -> str:
    """The whole page as a string."""
    cfg = (manifest or {}).get("config") or {}
    keys = ("world", "agent", "user", "stressors", "stressor_mode", "setup")
    facts = [f"{k}: {', '.join(map(str, v)) if isinstance(v, list) else v}" for k in keys if (v := cfg.get(k))]
    facts.append(f"score set {summary.score_set or 'default'}")
    if summary.identity is not None:  # what the run ran, as every other output names it
        facts = [f"{k}: {v}" for k, v in summary.identity.facts()]
    charts, notes = plots(summary)
    headline, *others = build_sections(summary)
    links = [("headline", "headline"), ("plots-h", "plots")]
    links += [("compare", "comparison")] if comparison_html else []
    links += [(s.key, s.key) for s in others if s.key in ("stressors", "users", "tasks")]
    body = [
        f"<h1>{escape(page_title(summary))}</h1>",
        f'<p class="sub">{escape(" · ".join(facts))}</p>',
        '<nav class="toc">'
        + "".join(f'<a href="#{k}">{escape(text)}</a>' for k, text in links)
        + '<a href="#episodes">episodes</a></nav>',
        comparison_html,
        section_html(headline),
        '<h2 id="plots-h">Plots</h2>',
        f'<div id="plots">{"".join(charts)}</div>' if charts else "",
        "".join(f'<p class="note">{escape(n)}</p>' for n in notes),
        *(section_html(s) for s in others),
        _viewer(sample),
    ]
    title = escape(f"squall report {summary.run_id or ''}")
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        # No network: refuse any load the page might be talked into.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "script-src 'unsafe-inline'; img-src data:\">"
        f"<title>{title}</title><style>{_asset('viewer.css')}</style></head><body>"
        + "".join(body)
        + f"<script>{_asset('viewer.js')}</script></body></html>\n"
    )


def write_html_report(
    run_dir: Path,
    summary: RunSummary,
    score_set: str | None = None,
    cap: int = DEFAULT_CAP,
    comparison_html: str = "",
    name: str = REPORT,
) -> Path:
    """Write ``run_dir/name`` atomically and return its path. Streams the store (see ``sim.report.episodes``)."""
    store = RunStore(run_dir)
    chosen = score_set if score_set is not None else summary.score_set or store.newest_score_set()
    sample = collect_episodes(store, chosen, cap)
    try:
        manifest: dict[str, Any] | None = store.manifest()
    except StoreError:
        manifest = None
    path = run_dir / name
    write_text_atomic(path, render_html(summary, sample, manifest, comparison_html))
    return path
