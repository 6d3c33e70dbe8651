"""`squall view` in headless Chromium over three real runs (a model agent under stressors, the oracle, the null
agent): every view navigated with no console error and no blank screenshot, from static files and served, and the
served page following a run while its episodes are written (a partial last line included)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from sim.view.site import ViewSite
from tests.sim.view.test_view_data import served
from tests.support.cli import squall
from tests.support.view_tour import fired_episode


@pytest.mark.slow
def test_every_view_in_headless_chromium(view_runs: Path, tmp_path: Path) -> None:
    binary = shutil.which("chromium")
    if binary is None:
        pytest.skip("chromium is not installed (scripts/setup.sh installs it); the browser check needs it")
    from tests.support.cdp import chromium_page
    from tests.support.view_tour import count, ink, tour, wait_for

    out = tmp_path / "site"
    code, _, err = squall("view", str(view_runs), "--out", str(out))
    assert code == 0, err
    episode, scenario = fired_episode(view_runs / "mock-stress")
    n = len((view_runs / "mock-stress" / "episodes.jsonl").read_text().splitlines())
    live = tmp_path / "live" / "writing"
    shutil.copytree(view_runs / "null", live, ignore=shutil.ignore_patterns("*.html"))
    lines = (live / "episodes.jsonl").read_text().splitlines(keepends=True)
    (live / "episodes.jsonl").write_text("".join(lines[:2]))

    async def drive() -> None:
        async with chromium_page(binary, tmp_path / "profile") as page:
            seen = await tour(page, (out / "index.html").as_uri(), "mock-stress", "oracle", episode, scenario)
            facts = seen.facts
            assert facts["errors"] == []
            assert facts["runs_listed"] == 3 and facts["leaderboard_rows"] == 3
            assert facts["charts"] >= 3 and facts["error_bars"] > 0
            assert facts["listed"] == n and 0 < facts["filtered"]["stressor"] < n
            assert facts["filtered"]["outcome"] == n  # the first_tool policy solves nothing
            assert facts["filtered"]["judge"][1] > 0 and facts["filtered"]["code"][1] > 0
            assert 0 < facts["filtered"]["search"] < n
            assert facts["grid_cells"] == n
            assert facts["requests"] > 0 and facts["tools"] > 0 and facts["prompt"] > 0
            assert facts["fired"] >= 1 and facts["state_rows"] > 0
            assert facts["flipped"] == 3  # oracle passes every task, the model none
            blank = {name: round(ink(png), 4) for name, png in seen.shots.items() if ink(png) < 0.02}
            assert not blank, f"blank screenshots: {blank}"

            with served(ViewSite([tmp_path / "live"], cap=1000)) as url:
                await page.navigate(url + "#/run/writing/episodes")
                await wait_for(page, "document.querySelectorAll('tr.ep-row').length === 2")
                await wait_for(page, "/live: following/.test(document.getElementById('live').textContent)")
                with (live / "episodes.jsonl").open("a") as f:
                    f.write(lines[2][:40])  # the writer is mid-line
                await asyncio.sleep(2.5)
                assert await count(page, "tr.ep-row") == 2
                with (live / "episodes.jsonl").open("a") as f:
                    f.write(lines[2][40:])
                await wait_for(page, "document.querySelectorAll('tr.ep-row').length === 3", limit_s=15)
                assert page.errors() == []

    asyncio.run(asyncio.wait_for(drive(), 150))
