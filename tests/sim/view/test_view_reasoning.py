"""`squall view`'s episode page in headless Chromium for a run against a provider that returns reasoning text, token
details and a reply cut at the output limit (tests/support/provider_replies.py): the reasoning is there to read, the
cached input and reasoning tokens beside each request's counts, the cut reply marked, its fault in the conversation."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from tests.support.canned_provider import canned_provider
from tests.support.cli import squall
from tests.support.provider_replies import REASONING, answer


def test_the_episode_page_shows_reasoning_token_details_and_a_cut_reply(tmp_path: Path) -> None:
    binary = shutil.which("chromium")
    if binary is None:
        pytest.skip("chromium is not installed (scripts/setup.sh installs it); the browser check needs it")
    from tests.support.cdp import chromium_page
    from tests.support.view_tour import ink, screenshot, wait_for

    runs, site = tmp_path / "runs", tmp_path / "site"
    args = ("--world", "smart_home", "--limit", "1", "--max-turns", "1", "--error-judge", "off", "--no-preflight", "-q")
    with canned_provider(answer) as server:
        code, _, err = squall(
            "run", "--agent", f"openai-chat:m@{server.url}", *args, "--out", str(runs), "--run-id", "r"
        )
    assert code == 0, err
    code, _, err = squall("view", str(runs), "--out", str(site))
    assert code == 0, err
    episode = json.loads((runs / "r" / "episodes.jsonl").read_text().splitlines()[0])["episode_id"]

    async def drive() -> None:
        async with chromium_page(binary, tmp_path / "profile") as page:
            await page.navigate((site / "index.html").as_uri() + "#/run/r/ep/" + episode.replace("#", "%23"))
            # A minute, not the tour's 20 s: a machine busy with other tests has been seen to take longer.
            await wait_for(page, "!!document.querySelector('#reasoning details.reasoning')", limit_s=60)
            shown = await page.evaluate(
                "(() => { const d = document.querySelector('#reasoning details.reasoning'); d.open = true;"
                " return {summary: d.querySelector('summary').textContent, text: d.querySelector('pre').textContent,"
                " visible: d.querySelector('pre').getBoundingClientRect().height > 0}; })()"
            )
            assert shown["text"] == REASONING and shown["visible"]
            assert shown["summary"].startswith("Reasoning of request 1 (agent, turn 0")
            cells = await page.evaluate(
                "[...document.querySelectorAll('table.requests tbody tr')]"
                ".map(r => [...r.cells].map(c => c.textContent))"
            )
            assert cells[0][4] == "80 (64 cached)" and cells[0][5] == "20 (12 reasoning)"
            assert cells[1][8] == "CUT at the provider's own output limit: its calls were not run"
            errors = await page.evaluate("[...document.querySelectorAll('.error .meta')].map(e => e.textContent)")
            assert any("agent:output_truncated" in e for e in errors)
            assert ink(await screenshot(page)) > 0.02
            assert page.errors() == []

    asyncio.run(asyncio.wait_for(drive(), 120))
