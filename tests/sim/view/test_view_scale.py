"""`squall view` over 100 runs of mixed worlds in headless Chromium at 1280 px: the runs list fits the page with one
line a run (long agents and stressor lists cut, run ids whole, duplicate labels told apart by their ids), and the
leaderboard ranks per world, listing the runs it cannot compare instead of rows of n/a."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest

from sim.view.site import ViewSite
from tests.sim.view.test_view_data import served
from tests.support.many_runs import LONG_AGENT, LONG_STRESSORS, write_run

WORLDS = ("smart_home", "bank", "mail_client")
AGENTS = ("oracle", "null", LONG_AGENT, "native:openai-chat:gpt-4o-mini@https://api.example.com/v1")
LABELS = ("baseline", "baseline", "qwen3 sweep", "")  # duplicates on purpose


def make_runs(root: Path, n: int = 100) -> None:
    """``n`` runs over three worlds and four agents, plus runs no board can rank: a world of its own, a smaller plan,
    one with no verdicts."""
    for i in range(n - 3):
        world, agent = WORLDS[i % 3], AGENTS[i % 4]
        verdicts: dict[str, float | None] = {f"t{k}": float(k >= i % 4 - (i // 12) % 2) for k in range(4)}
        stressors = tuple(LONG_STRESSORS) if i % 5 == 0 else ()
        run_id = f"20260101-{i // 60:02d}{i % 60:02d}00"
        write_run(root / run_id, agent, world, verdicts, LABELS[i % 4], stressors=stressors, minute=i)
    write_run(root / "20260102-000000", "oracle", "travel_agency", {"t0": 1.0}, "baseline", minute=100)
    write_run(root / "20260102-000100", "null", "bank", {"t0": 0.0}, "baseline", limit=1, minute=101)
    write_run(root / "20260102-000200", LONG_AGENT, "mail_client", {"t0": None}, minute=102)


RUNS_FACTS = """(() => {
  const table = document.querySelector('table.runs-table');
  const rows = [...table.querySelectorAll('tbody tr')];
  const ids = rows.map(r => r.cells[0].querySelector('a'));
  return {
    rows: rows.length,
    table_width: table.scrollWidth, box_width: table.parentElement.clientWidth,
    page_overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    heights: [...new Set(rows.map(r => Math.round(r.getBoundingClientRect().height)))],
    ids_cut: ids.filter(a => a.scrollWidth > a.clientWidth || a.clientWidth === 0).map(a => a.textContent),
    names: rows.map(r => r.cells[0].textContent + ' | ' + r.cells[1].textContent),
    agent_tip: rows.map(r => r.cells[3].querySelector('.clip').title).filter(t => t.length > 40)[0] || '',
    numbers_cut: rows.flatMap(r => [...r.cells].slice(6)).filter(c => c.scrollWidth > c.clientWidth).length,
    heads_cut: [...table.querySelectorAll('th')].filter(c => c.scrollWidth > c.clientWidth).map(c => c.textContent),
    agent_cut: rows.some(r => { const c = r.cells[3].querySelector('.clip'); return c.scrollWidth > c.clientWidth; }),
  };
})()"""

BOARD_FACTS = """(() => {
  const parts = [...document.querySelectorAll('section.board-world')];
  const rows = parts.flatMap(p => [...p.querySelectorAll('table.leaderboard tbody tr')]);
  const cells = rows.map(r => r.cells[4].textContent);
  const off = [...document.querySelectorAll('table.not-comparable tbody tr')];
  return {
    worlds: parts.map(p => p.querySelector('h3').textContent.split(' \\u2014 ')[0]),
    ranked: cells.length, na: cells.filter(c => c === 'n/a').length,
    not_comparable: off.map(r => r.cells[0].textContent + ': ' + r.cells[5].textContent),
    overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
  };
})()"""


def test_a_hundred_runs_of_mixed_worlds_at_1280_px(tmp_path: Path) -> None:
    binary = shutil.which("chromium")
    if binary is None:
        pytest.skip("chromium is not installed (scripts/setup.sh installs it); the browser check needs it")
    from tests.support.cdp import chromium_page
    from tests.support.view_tour import ink, screenshot, set_control, wait_for

    make_runs(tmp_path / "runs")

    async def drive() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], bytes]:
        async with chromium_page(binary, tmp_path / "profile", width=1280) as page:
            with served(ViewSite([tmp_path / "runs"], cap=1000)) as url:
                await page.navigate(url + "#/")
                await wait_for(page, "document.querySelectorAll('table.runs-table tbody tr').length === 100")
                await wait_for(page, "!!document.querySelector('section.board-world')")
                runs, board = await page.evaluate(RUNS_FACTS), await page.evaluate(BOARD_FACTS)
                shot = await screenshot(page, 1280, 6000)
                await set_control(page, "board-by", "run")
                by_run = await page.evaluate(BOARD_FACTS)
                assert page.errors() == []
                return runs, board, by_run, shot

    runs, board, by_run, shot = asyncio.run(asyncio.wait_for(drive(), 120))
    (tmp_path / "runs-1280.png").write_bytes(shot)  # to look at: pytest's tmp folder, not the repo
    assert runs["rows"] == 100
    assert runs["table_width"] <= runs["box_width"] and runs["page_overflow"] <= 0, runs
    assert len(runs["heights"]) == 1 and runs["heights"][0] <= 30, runs["heights"]  # one line a row
    assert runs["ids_cut"] == [] and runs["numbers_cut"] == 0 and runs["heads_cut"] == [], "ids, numbers shown whole"
    assert len(set(runs["names"])) == 100 and sum(" | baseline" in n for n in runs["names"]) > 2  # told apart
    assert runs["agent_tip"] in AGENTS and runs["agent_cut"], "a long agent is cut, its full text in the tooltip"
    for seen in (board, by_run):
        assert sorted(seen["worlds"]) == sorted(WORLDS) and seen["ranked"] > 0 and seen["na"] == 0, seen
        assert seen["overflow"] <= 0
        why = dict(n.split(": ", 1) for n in seen["not_comparable"])
        assert why["20260102-000000"] == "the only run of world travel_agency"
        assert why["20260102-000100"] == "no other run of bank plans first 1 task"
        assert why["20260102-000200"] == "no verdicts on core_api_accuracy"
    assert ink(shot) > 0.02
