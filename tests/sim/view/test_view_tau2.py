"""τ²'s reward, component by component, where a reader looks: on ``squall view``'s episode page and in report.html's
episode detail (what failed each component), and per task in the run's report sections (headless Chromium, over a
null-agent run on τ²'s telecom: its environment assertions fail, and say which)."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from tests.support.cli import squall

pytest.importorskip("worlds.tau2.source")
try:
    from worlds.tau2.source import package_root

    package_root()
except ValueError as exc:  # the wheel is absent (Tau2Error)
    pytest.skip(str(exc), allow_module_level=True)

ROWS = (
    "[...document.querySelectorAll('table.tau2-components tr')].slice(1).map(r => [...r.cells].map(c => c.textContent))"
)
PER_TASK = "[...document.querySelectorAll('table.tau2_tasks tbody tr')].map(r => [...r.cells].map(c => c.textContent))"
FAILED = "user:assert_mobile_data_status({'expected_status': True}): expected True, got False"


def test_the_episode_page_and_the_run_report_show_taus_reward_components(tmp_path: Path) -> None:
    binary = shutil.which("chromium")
    if binary is None:
        pytest.skip("chromium is not installed (scripts/setup.sh installs it); the browser check needs it")
    from tests.support.cdp import chromium_page
    from tests.support.view_tour import wait_for

    runs, site = tmp_path / "runs", tmp_path / "site"
    args = ("--world", "tau2:telecom:small", "--limit", "1", "--out", str(runs), "--run-id", "r", "-q")
    code, _, err = squall("run", "--agent", "null", *args)
    assert code == 0, err
    code, _, err = squall("view", str(runs), "--out", str(site))
    assert code == 0, err
    episode = json.loads((runs / "r" / "episodes.jsonl").read_text().splitlines()[0])["episode_id"]
    anchor = episode.replace("#", "%23")

    async def drive() -> None:
        async with chromium_page(binary, tmp_path / "profile") as page:
            await page.navigate((site / "index.html").as_uri() + "#/run/r/ep/" + anchor)
            await wait_for(page, "!!document.querySelector('table.tau2-components')", limit_s=60)
            (row,) = await page.evaluate(ROWS)
            assert row[:2] == ["ENV_ASSERTION", "FAIL"] and FAILED in row[2]
            await page.navigate("about:blank")
            await page.navigate((site / "index.html").as_uri() + "#/run/r")
            (task,) = await wait_for(page, PER_TASK)
            assert task[1:] == ["1", "0.0%", "0.0%"]  # one trial, reward 0, its one component (ENV_ASSERTION) 0
            await page.navigate((runs / "r" / "report.html").as_uri() + "#episode=" + anchor)
            (row,) = await wait_for(page, f"(() => {{ const r = {ROWS}; return r.length ? r : null; }})()")
            assert row[:2] == ["ENV_ASSERTION", "FAIL"] and FAILED in row[2]
            assert page.errors() == []

    asyncio.run(asyncio.wait_for(drive(), 120))
