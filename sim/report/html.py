"""``RUN_DIR/report.html``: the run summary as one self-contained page — headline numbers with their intervals and
denominators, inline SVG charts, the tables of the terminal report, and an episode viewer.

Works offline: the CSS and the viewer's JS are package files inlined into the page, charts are SVG drawn here,
and nothing is fetched. Every piece of text goes through ``html.escape``; the episodes are embedded as JSON in a
``<script type="application/json">`` tag with ``<``, ``>`` and ``&`` escaped so no text can close the tag."""

from __future__ import annotations

import json
from html import escape
from importlib.resources import files
from pathlib import Path
from typing import Any

from sim.core.files import write_text_atomic
from sim.report.episodes import DEFAULT_CAP, EpisodeSample, collect_episodes
from sim.report.rows import CLUSTERED_NOTE, ast_reason_line, headline_rows, pct, ratio_ci
from sim.report.svg import bar_chart
from sim.report.terminal import DETAILED_TYPES, USER_COLUMNS, coreferential_line, user_cells
from sim.store.run_store import RunStore, StoreError

REPORT = "report.html"


def _asset(name: str) -> str:
    return files("sim.report").joinpath(name).read_text(encoding="utf-8")


def table(header: list[str], rows: list[list[str]], cls: str = "") -> str:
    """An escaped HTML table; every column after the first is numeric (right-aligned)."""
    head = "".join(f"<th{'' if i == 0 else ' class=num'}>{escape(h)}</th>" for i, h in enumerate(header))
    body = "".join(
        "<tr>" + "".join(f"<td{'' if i == 0 else ' class=num'}>{escape(c)}</td>" for i, c in enumerate(r)) + "</tr>"
        for r in rows
    )
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _counts_chart(counts: dict[str, int] | None, title: str) -> tuple[str, str]:
    rows = [(k, [float(v)]) for k, v in sorted((counts or {}).items(), key=lambda kv: -kv[1]) if v]
    return (bar_chart(rows[:30], ["count"], title, percent=False), "") if rows else ("", f"{title}: none counted.")


def plots(summary: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(charts, one-line notes for the charts left out because they had no data)."""
    charts: list[str] = []
    notes: list[str] = []

    def add(chart: str, note: str) -> None:
        if chart:
            charts.append(chart)
        else:
            notes.append(note)

    stressors = summary.get("stressors") or {}
    if stressors.get("by_type"):
        mode = stressors.get("mode", "isolated")
        rows = [(r["name"], [r.get("before"), r.get("after")]) for r in stressors["by_type"]]
        add(bar_chart(rows, ["without", "with"], f"accuracy per stressor type, {mode}"), "")
        scen = [(r["name"], [r.get("before"), r.get("after")]) for r in stressors.get("by_scenario") or ()]
        add(bar_chart(scen[:40], ["without", "with"], "accuracy per scenario, without vs with"), "")
    elif stressors.get("unavailable"):
        notes.append(f"Stressor charts: {stressors['unavailable']}")
    else:
        notes.append(
            "Per-stressor accuracy with vs without: not measured (needs --stressor-mode isolated; a cumulative run "
            "stacks every stressor on each episode, so no baseline pairs exist)."
        )
    stack = (summary.get("stacking") or {}).get("by_fired") or []
    if stack:  # cumulative: what compounds is what fires on the same goal
        rows = [(f"{r['fired']} fired ({r['goals']} goals)", [r.get("accuracy")]) for r in stack]
        add(bar_chart(rows, ["goal accuracy"], "stacked stressors: accuracy by scenarios fired on the goal"), "")
    add(*_counts_chart(summary.get("failure_stages"), "failure stages (wrong goals)"))
    add(*_counts_chart(summary.get("error_categories"), "error categories (wrong goals)"))
    add(*_counts_chart(summary.get("error_codes"), "error codes"))
    roles = {k: v for k, v in (summary.get("usage_by_role") or {}).items() if v.get("requests")}
    if roles:
        tokens = [(r, [float(u.get("input_tokens", 0)), float(u.get("output_tokens", 0))]) for r, u in roles.items()]
        charts.append(bar_chart(tokens, ["input tokens", "output tokens"], "tokens per role", percent=False))
        cost = [(r, [float(u.get("cost", 0.0))]) for r, u in roles.items()]
        charts.append(bar_chart(cost, ["USD"], "cost per role (USD)", percent=False))
    else:
        notes.append("Tokens and cost per role: no model calls were made (scripted agent and user).")
    users = (summary.get("users") or {}).get("by_user") or []
    if users:
        rows = [(u["user"], [u.get("goal_accuracy"), u.get("conversation_success")]) for u in users]
        charts.append(bar_chart(rows, ["goal accuracy", "success"], "per user"))
    return charts, notes


def _stressor_tables(stressors: dict[str, Any]) -> str:
    if not stressors.get("by_type"):
        return ""

    def cells(r: dict[str, Any]) -> list[str]:
        retention = "-" if r.get("retention") is None else f"{r['retention']:.2f} {ratio_ci(r.get('retention_ci95'))}"
        return [str(r.get("turns")), pct(r.get("before")), pct(r.get("after")), pct(r.get("degradation")), retention]

    header = ["goals", "before", "after", "degradation", "retention [95% CI]"]
    out = [f"<h3>By type ({escape(str(stressors.get('mode', 'isolated')))})</h3>"]
    out.append(table(["type", *header], [[r["name"], *cells(r)] for r in stressors["by_type"]]))
    detailed = [r for r in stressors.get("by_operator") or () if r.get("type") in DETAILED_TYPES]
    if detailed:
        out.append("<h3>Drift and perturbation operators</h3>")
        out.append(table(["operator", "scenarios", *header], [[r["name"], str(r.get("scenarios")), *cells(r)]
                                                              for r in detailed]))  # fmt: skip
    if stressors.get("by_scenario"):
        out.append("<h3>By scenario</h3>")
        out.append(table(["scenario", *header], [[r["name"], *cells(r)] for r in stressors["by_scenario"]]))
    left = sum((stressors.get("unpaired_episodes") or {}).values())
    if left:
        out.append(f'<p class="note">{left} stressed episode(s) left out: failed, or their baseline is missing.</p>')
    return "".join(out)


def _other_tables(summary: dict[str, Any]) -> str:
    out: list[str] = []
    kinds = [[f"termination: {k}", str(v)] for k, v in sorted((summary.get("terminations") or {}).items())]
    kinds += [[f"fault: {k}", str(v)] for k, v in sorted((summary.get("faults_by_kind") or {}).items())]
    if kinds:
        out.append("<h2 id=faults>Terminations and faults</h2>" + table(["kind", "count"], kinds))
    users = summary.get("users")
    if users:
        rows = [user_cells(r, users.get("baseline")) for r in users["by_user"]]
        out.append("<h2 id=users>By user</h2>" + table(list(USER_COLUMNS), rows))
        if line := coreferential_line(users):
            out.append(f'<p class="note">{escape(line)}</p>')
    roles = summary.get("usage_by_role") or {}
    if any(u.get("requests") for u in roles.values()):
        rows = [[r, str(u.get("requests", 0)), f"{u.get('input_tokens', 0):,}", f"{u.get('output_tokens', 0):,}",
                 f"${u.get('cost', 0.0):.4f}"] for r, u in roles.items()]  # fmt: skip
        out.append("<h2 id=usage>Usage per role</h2>" + table(["role", "requests", "in", "out", "cost"], rows))
    per_task = summary.get("per_task") or {}
    if per_task:
        rows = [[t, str(r.get("trials")), pct(r.get("conversation_success"))] for t, r in list(per_task.items())[:500]]
        out.append("<h2 id=tasks>Per task</h2>" + table(["task", "trials", "success"], rows))
        if len(per_task) > 500:
            out.append(f'<p class="note">First 500 of {len(per_task)} tasks (all are in summary.json).</p>')
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
    summary: dict[str, Any],
    sample: EpisodeSample,
    manifest: dict[str, Any] | None = None,
    comparison_html: str = "",
) -> str:
    """The whole page as a string."""
    cfg = (manifest or {}).get("config") or {}
    keys = ("world", "agent", "user", "stressors", "stressor_mode", "setup")
    facts = [f"{k}: {', '.join(map(str, v)) if isinstance(v, list) else v}" for k in keys if (v := cfg.get(k))]
    facts.append(f"score set {summary.get('score_set') or 'default'}")
    charts, notes = plots(summary)
    notes_html = "".join(f'<p class="note">{escape(n)}</p>' for n in notes)
    head_notes = [f"95% intervals over {summary.get('tasks_scored')} tasks: {CLUSTERED_NOTE}."]
    if line := ast_reason_line(summary):
        head_notes.append(line)
    stress = _stressor_tables(summary.get("stressors") or {})
    body = [
        f"<h1>squall run {escape(str(summary.get('run_id', '')))}</h1>",
        f'<p class="sub">{escape(" · ".join(facts))}</p>',
        '<nav class="toc"><a href="#headline">headline</a><a href="#plots-h">plots</a>'
        + ('<a href="#compare">comparison</a>' if comparison_html else "")
        + ('<a href="#stressors">stressors</a>' if stress else "")
        + '<a href="#episodes">episodes</a></nav>',
        comparison_html,
        '<h2 id="headline">Headline</h2>',
        table(["metric", "value", "95% CI", "over"], headline_rows(summary), "headline"),
        "".join(f'<p class="note">{escape(n)}</p>' for n in head_notes),
        '<h2 id="plots-h">Plots</h2>',
        f'<div id="plots">{"".join(charts)}</div>' if charts else "",
        notes_html,
        f'<h2 id="stressors">Stressors</h2>{stress}' if stress else "",
        _other_tables(summary),
        _viewer(sample),
    ]
    title = escape(f"squall report {summary.get('run_id', '')}")
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
    summary: dict[str, Any],
    score_set: str | None = None,
    cap: int = DEFAULT_CAP,
    comparison_html: str = "",
    name: str = REPORT,
) -> Path:
    """Write ``run_dir/name`` atomically and return its path. Streams the store (see ``sim.report.episodes``)."""
    store = RunStore(run_dir)
    chosen = score_set if score_set is not None else str(summary.get("score_set") or store.newest_score_set())
    sample = collect_episodes(store, chosen, cap)
    try:
        manifest: dict[str, Any] | None = store.manifest()
    except StoreError:
        manifest = None
    path = run_dir / name
    write_text_atomic(path, render_html(summary, sample, manifest, comparison_html))
    return path
