"""The HTML report: one offline file, episodes embedded safely, the two-run comparison's numbers, and the page
itself in headless Chromium (no console errors, plots drawn, the viewer's buttons and hash routing work)."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from judges.common.stats import paired_difference
from sim.report.compare import compare_runs
from sim.report.html import write_html_report
from sim.run.rescore import summary_of
from sim.store.run_store import RunStore
from tests.support.cli import invoke

XSS = "</script><script>alert(1)</script>"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two real runs made through the CLI: naive under isolated stressors, and the oracle."""
    out = tmp_path_factory.mktemp("runs")
    common = ("--world", "smart_home", "--trials", "2", "--out", str(out), "-q")
    args = ("--stressors", "outage,failure", "--stressor-mode", "isolated")
    code, text = invoke("run", "--agent", "naive", *args, *common, "--run-id", "iso")
    assert code == 0, text
    code, text = invoke("run", "--agent", "oracle", *common, "--run-id", "oracle")
    assert code == 0, text
    return out


def embedded(html: str) -> list[dict]:  # type: ignore[type-arg]
    m = re.search(r'<script type="application/json" id="episodes-data">(.*?)</script>', html, re.S)
    assert m, "no embedded episodes"
    return json.loads(m.group(1))  # type: ignore[no-any-return]


def copy_run(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("*.html"))
    return dst


def test_run_writes_one_offline_file(runs: Path) -> None:
    html = (runs / "iso" / "report.html").read_text()  # `squall run` wrote it beside summary.md
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    refs = re.findall(r"""(?:src|href)\s*=\s*["']?([^"'\s>]+)""", html, re.I)
    assert refs and all(r.startswith("#") for r in refs), refs  # in-page anchors only
    assert not re.search(r"<script[^>]*\bsrc=|<link\b|@import|url\(", html, re.I)
    assert "<svg" in html and "Headline" in html


def test_report_command_writes_html_and_no_html_skips_it(runs: Path, tmp_path: Path) -> None:
    run = copy_run(runs / "oracle", tmp_path / "oracle")
    code, out = invoke("report", str(run), "--no-html")
    assert code == 0, out
    assert not (run / "report.html").exists()
    code, out = invoke("report", str(run))
    assert code == 0 and (run / "report.html").exists()
    assert "report.html" in "".join(out.split())


def test_episode_json_round_trips(runs: Path) -> None:
    run = runs / "iso"
    shown = embedded((run / "report.html").read_text())
    stored = {e.episode_id: e for e in RunStore(run).iter_episodes()}
    assert {e["id"] for e in shown} == stored.keys()  # under the cap: every episode, once
    for ep in shown[:20]:
        result = stored[ep["id"]]
        assert [ev["k"] for ev in ep["events"]] == [ev.kind for ev in result.events]
        assert [ev.get("text") for ev in ep["events"]] == [ev.content for ev in result.events]
        assert ep["scores"]["core_api_accuracy"]["value"] is not None
    fired = [ev for ep in shown for ev in ep["events"] if ev.get("scenarios")]
    assert fired, "the stressed episodes' tool results name their scenarios"
    # Failed first, then the lowest-scoring, then the rest: the ranks that exist never go down before the passes.
    ranks = [ep["rank"] for ep in shown if ep["outcome"] == "wrong"]
    assert ranks == sorted(ranks)


def test_script_text_is_escaped_and_cap_is_stated(runs: Path, tmp_path: Path) -> None:
    run = copy_run(runs / "oracle", tmp_path / "xss")
    lines = (run / "episodes.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["events"][0]["content"] = XSS
    first["task"]["description"] = XSS
    (run / "episodes.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    path = write_html_report(run, summary_of(run, None), cap=3)
    html = path.read_text()
    assert XSS not in html and "alert(1)</script>" not in html
    shown = embedded(html)
    assert len(shown) == 3 and f"Showing 3 of {len(lines)} episodes" in html
    # Every oracle episode passes, so the cap keeps the first three in run order: the edited one among them.
    target = next(e for e in shown if e["id"] == first["episode_id"])
    assert target["events"][0]["text"] == XSS and target["description"] == XSS


def test_paired_difference_by_hand() -> None:
    # Task A: other 1, 1 / this 1, 0; task B: other 0 / this 1. Δ = (2 - 2) / 3 = 0.
    st = paired_difference([(2.0, 1.0, 2.0), (0.0, 1.0, 1.0)])
    assert (st["a"], st["b"], st["diff"], st["units"], st["clusters"]) == (0.6667, 0.6667, 0.0, 3, 2)
    # Every task moves by the same -0.5 per episode: every resample gives exactly that.
    st = paired_difference([(2.0, 1.0, 2.0), (4.0, 2.0, 4.0), (1.0, 0.5, 1.0)])
    assert st["diff"] == -0.5 and st["ci95"] == (-0.5, -0.5)
    assert paired_difference([])["diff"] is None
    assert paired_difference([(1.0, 0.0, 1.0)])["ci95"] is None  # one task: no interval


def test_compare_numbers_on_a_hand_made_case(runs: Path, tmp_path: Path) -> None:
    this = copy_run(runs / "oracle", tmp_path / "this")
    other = copy_run(runs / "oracle", tmp_path / "other")
    # In "this", conversation_success fails on 3 episodes of 2 tasks; one more episode exists only in "other".
    lines = [json.loads(x) for x in (this / "scores.jsonl").read_text().splitlines()]
    ids = sorted({s["episode_id"] for s in lines})
    broken = {ids[0], ids[1], ids[2]}
    for s in lines:
        if s["judge"] == "conversation_success" and s["episode_id"] in broken:
            s["value"] = 0.0
    (this / "scores.jsonl").write_text("".join(json.dumps(s) + "\n" for s in lines))
    episodes = (this / "episodes.jsonl").read_text().splitlines()
    dropped = json.loads(episodes[-1])["episode_id"]
    (this / "episodes.jsonl").write_text("\n".join(episodes[:-1]) + "\n")
    cmp = compare_runs(this, summary_of(this, None), other, summary_of(other, None))
    n = len(ids) - 1
    assert (cmp.paired, cmp.only_this, cmp.only_other) == (n, 0, 1)
    by_judge = {d.judge: d for d in cmp.diffs}
    success = by_judge["conversation_success"]
    assert dropped not in broken and success.pairs == n
    assert success.other == 1.0 and success.diff == round(-3 / n, 4) and success.this == round(1 - 3 / n, 4)
    assert success.ci95 is not None and success.ci95[0] < success.diff <= success.ci95[1] <= 0
    assert by_judge["core_api_accuracy"].diff == 0.0
    code, out = invoke("report", str(this), "--compare", str(other))
    assert code == 0, out
    page = (this / "compare-other.html").read_text()
    assert f"{n} episodes paired" in page and f"{100 * -3 / n:+.1f} pts" in page


def test_compare_disjoint_runs_pairs_nothing(runs: Path, tmp_path: Path) -> None:
    other = copy_run(runs / "oracle", tmp_path / "renamed")
    for name in ("episodes.jsonl", "scores.jsonl"):
        text = (other / name).read_text()
        (other / name).write_text(re.sub(r'"episode_id": ?"', '"episode_id":"x-', text))
    code, out = invoke("report", str(runs / "iso"), "--compare", str(other), "--no-html")
    assert code == 0, out
    assert "0 episodes paired" in " ".join(out.split())


def test_compare_warns_when_a_pair_is_not_the_same_episode(runs: Path, tmp_path: Path) -> None:
    same = compare_runs(
        runs / "oracle", summary_of(runs / "oracle", None), runs / "oracle", summary_of(runs / "oracle", None)
    )
    assert same.warnings == []
    other = copy_run(runs / "oracle", tmp_path / "reseeded")
    manifest = json.loads((other / "manifest.json").read_text())
    manifest["config"]["seed"] = 99
    (other / "manifest.json").write_text(json.dumps(manifest))
    cmp = compare_runs(runs / "oracle", summary_of(runs / "oracle", None), other, summary_of(other, None))
    assert cmp.paired == 20 and [w.split(" (")[0] for w in cmp.warnings] == ["seed differs"]


# ---------------------------------------------------------------- headless Chromium


def test_page_in_headless_chromium(runs: Path, tmp_path: Path) -> None:
    binary = shutil.which("chromium")
    if binary is None:
        pytest.skip("chromium is not installed (scripts/setup.sh installs it); the browser check needs it")
    from PIL import Image

    from tests.support.cdp import chromium_page

    report = runs / "iso" / "report.html"

    async def drive() -> bytes:
        async with chromium_page(binary, tmp_path / "profile") as page:
            await page.navigate(report.as_uri())
            assert page.errors() == []
            box = await page.evaluate(
                "(() => { const r = document.getElementById('plots').getBoundingClientRect();"
                " return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height}; })()"
            )
            assert box["width"] > 100 and box["height"] > 100, box
            shot = await page.call("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                                   clip={**box, "scale": 1})  # fmt: skip
            img = Image.open(io.BytesIO(base64.b64decode(shot["data"]))).convert("RGB")
            pixels = np.asarray(img).reshape(-1, 3).astype(int)
            ink = float((pixels != 255).any(axis=1).mean())
            saturated = pixels[pixels.max(axis=1) - pixels.min(axis=1) > 60]  # bar colours, not grey text edges
            assert ink > 0.03, f"plot area is nearly blank ({ink:.1%} ink)"
            assert len({tuple(p) for p in saturated // 32}) >= 2, "fewer than two bar colours"
            height = min(8000, await page.evaluate("document.documentElement.scrollHeight"))
            whole = {"x": 0, "y": 0, "width": 1280, "height": height, "scale": 1}
            full = await page.call("Page.captureScreenshot", format="png", captureBeyondViewport=True, clip=whole)

            first = await page.evaluate("document.getElementById('ep-current-id').textContent")
            await page.evaluate("document.getElementById('ep-next').click()")
            await asyncio.sleep(0.2)
            second = await page.evaluate("document.getElementById('ep-current-id').textContent")
            hash_ = await page.evaluate("decodeURIComponent(location.hash)")
            assert second != first and hash_ == f"#episode={second}"

            target = embedded(report.read_text())[5]["id"]
            await page.navigate("about:blank")  # else a fragment-only change is a same-document navigation
            await page.navigate(report.as_uri() + "#episode=" + target.replace("#", "%23"))
            assert await page.evaluate("document.getElementById('ep-current-id').textContent") == target
            assert page.errors() == []
            return base64.b64decode(full["data"])

    # The whole page, to look at by eye (the plots' clip above is what the test asserts on).
    Path("/tmp/report_screenshot.png").write_bytes(asyncio.run(asyncio.wait_for(drive(), 60)))
