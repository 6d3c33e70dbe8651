"""``squall view --out DIR``: the viewer as static files, opened from disk (``DIR/index.html``) or any web server.

Every document is written as ``data/NAME.js`` (a script that hands the document to ``squallData``); compare
documents for every pair of runs up to ``MAX_COMPARE_RUNS`` runs. Written to a temporary folder beside ``DIR`` and
moved into place at the end, so a failure leaves nothing half written."""

from __future__ import annotations

import itertools
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from sim.store.run_store import StoreError
from sim.view.page import ASSETS, asset, index_html, static_data_file
from sim.view.site import ViewSite

MARKER = ".squall-view"
"""In a folder this command wrote: only such a folder (or an empty one) is replaced."""
MAX_COMPARE_RUNS = 8


def _script(name: str, doc: Any) -> str:
    data = json.dumps(doc, separators=(",", ":"), default=str)
    # Inside a script only "</" could end it; escaping < > & (valid JSON string escapes) rules that out.
    data = data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f"squallData({json.dumps(name)},{data});\n"


def write_static(site: ViewSite, out: Path) -> int:
    """Write the viewer into ``out``; returns the number of documents. StoreError when ``out`` holds other files."""
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MARKER).exists())):
        raise StoreError(f"{out}: exists and is not an empty folder or an earlier `squall view --out`; pick another")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        runs = site.runs()
        names = ["runs"]
        for key in runs:
            names.append(f"run/{key}")
            names += [f"chunk/{key}/{i}" for i in range(len(site.documents(key, runs[key]).chunks))]
        if len(runs) <= MAX_COMPARE_RUNS:
            names += [f"compare/{a}/{b}" for a, b in itertools.permutations(runs, 2)]
        (tmp / "app").mkdir()
        (tmp / "data").mkdir()
        for name in ASSETS:
            (tmp / "app" / name).write_bytes(asset(name))
        for name in names:
            (tmp / static_data_file(name)).write_text(_script(name, site.document(name)), encoding="utf-8")
        (tmp / "index.html").write_text(index_html("static"), encoding="utf-8")
        (tmp / MARKER).write_text("written by squall view --out\n", encoding="utf-8")
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return len(names)
