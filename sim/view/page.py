"""The viewer's one HTML page and its asset files (vanilla JS and CSS shipped in this package: no CDN, no network).

The same page runs served (documents fetched from ``api/NAME.json``, polled for live refresh) and as static files
(documents in ``data/*.js`` files that call ``squallData``: a ``file://`` page may load scripts, not fetch JSON)."""

from __future__ import annotations

from html import escape
from importlib.resources import files
from typing import Literal
from urllib.parse import quote

ASSETS = ("view.css", "view_core.js", "view_runs.js", "view_run.js", "view_episode.js")
"""Loaded in this order; view_core.js defines what the others use, and routes once the page has them all."""
Mode = Literal["served", "static"]


def asset(name: str) -> bytes:
    """An asset's bytes; the stylesheet is the HTML report's and the viewer's own after it."""
    own = files("sim.view").joinpath(name).read_bytes()
    if name == "view.css":
        return files("sim.report").joinpath("viewer.css").read_bytes() + b"\n" + own
    return own


def static_data_file(name: str) -> str:
    """The file a document is written to in static mode; the page's JS names it the same way
    (``encodeURIComponent`` leaves ``!*'()`` as they are, and ``%`` is not safe in a file name)."""
    return "data/" + quote(name, safe="!*'()").replace("%", "_") + ".js"


def index_html(mode: Mode, title: str = "squall view") -> str:
    css = '<link rel="icon" href="data:,"><link rel="stylesheet" href="app/view.css">'
    scripts = "".join(f'<script src="app/{n}"></script>' for n in ASSETS if n.endswith(".js"))
    # Only this page's own files: a trace that holds markup can load nothing (and the viewer inserts text only).
    policy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:"
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
        f"<title>{escape(title)}</title>{css}</head>"
        f'<body data-mode="{mode}"><header id="top"><a href="#/" id="home">squall view</a>'
        '<nav id="crumbs"></nav><span id="live" class="note"></span></header>'
        f'<main id="app"><p class="note">Loading…</p></main>{scripts}</body></html>\n'
    )
