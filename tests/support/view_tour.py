"""A walk through every view of ``squall view`` in headless Chromium (tests/support/cdp.py): the run list and the
leaderboard, a run's overview with its charts, the episode list searched and filtered, the task × trial grid, an
episode (prompt, tools, model requests, stressors, state diff) and the compare view. Used by the browser test and by
scripts/view_screenshots.py, which keeps the screenshots for docs/view.md."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.cdp import CDPError, Page

WAIT_S = 20.0


@dataclass
class Tour:
    """What the walk saw: a PNG per view and the numbers the test checks."""

    shots: dict[str, bytes] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)


def fired_episode(run: Path) -> tuple[str, str]:
    """(episode id, scenario) of the first stored episode where a stressor fired on a tool result."""
    for line in (run / "episodes.jsonl").read_text().splitlines():
        episode = json.loads(line)
        fired = [s for ev in episode["events"] for s in ev["scenarios"]]
        if fired:
            return episode["episode_id"], fired[0]
    raise AssertionError(f"no stressor fired in {run}")


async def wait_for(page: Page, expression: str, limit_s: float = WAIT_S) -> Any:
    """The value of ``expression`` once it is truthy (polled); CDPError after ``limit_s``."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        value = await page.evaluate(expression)
        if value:
            return value
        await asyncio.sleep(0.1)
    raise CDPError(f"not true within {limit_s}s: {expression}; page errors: {page.errors()}")


async def goto(page: Page, hash_: str, ready: str) -> None:
    """Route to ``#hash_`` in the open page and wait until ``ready`` (a CSS selector) is there."""
    await page.evaluate(f"location.hash = {json.dumps(hash_)}")
    await wait_for(
        page, f"location.hash === {json.dumps('#' + hash_)} && !!document.querySelector({json.dumps(ready)})"
    )


async def screenshot(page: Page, width: int = 1280, max_height: int = 2400) -> bytes:
    height = min(max_height, int(await page.evaluate("document.documentElement.scrollHeight")))
    clip = {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}
    shot = await page.call("Page.captureScreenshot", format="png", captureBeyondViewport=True, clip=clip)
    return base64.b64decode(shot["data"])


def ink(png: bytes) -> float:
    """Share of pixels that are not white: a blank page is ~0."""
    import numpy as np
    from PIL import Image

    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).reshape(-1, 3)
    return float((pixels < 250).any(axis=1).mean())


async def set_control(page: Page, ident: str, value: str | None, event: str = "change") -> str:
    """Set an input or select (None: a select's first option after 'any') as a person would; returns its value."""
    js = "s.selectedIndex = 1" if value is None else f"s.value = {json.dumps(value)}"
    script = f"const s = document.getElementById({json.dumps(ident)}); {js}; s.dispatchEvent(new Event('{event}'));"
    return str(await page.evaluate(f"(() => {{ {script} return s.value; }})()"))


async def count(page: Page, selector: str) -> int:
    return int(await page.evaluate(f"document.querySelectorAll({json.dumps(selector)}).length"))


async def tour(page: Page, url: str, run: str, other: str, episode: str, stressor: str) -> Tour:
    """Walk every view. ``run`` has a model agent under stressors; ``episode`` is one of its episodes where
    ``stressor`` fired; ``other`` is a second run to compare with."""
    seen = Tour()
    await page.navigate(url + "#/")
    await wait_for(
        page, "!!document.querySelector('table.runs-table') && !!document.querySelector('table.leaderboard')"
    )
    seen.facts["runs_listed"] = await count(page, "table.runs-table tbody tr")
    seen.facts["leaderboard_rows"] = await count(page, "table.leaderboard tbody tr")
    seen.shots["runs"] = await screenshot(page)

    await goto(page, f"/run/{run}", "#plots svg")
    seen.facts["charts"] = await count(page, "#plots svg")
    seen.facts["error_bars"] = await count(page, "#plots .chart-err")
    seen.shots["run"] = await screenshot(page)

    await goto(page, f"/run/{run}/episodes", "table.episodes tr.ep-row")
    listed = await count(page, "tr.ep-row")
    by: dict[str, Any] = {}
    for key, wanted in (("stressor", stressor), ("outcome", "wrong")):
        await set_control(page, f"filter-{key}", wanted)
        by[key] = await count(page, "tr.ep-row")
        await set_control(page, f"filter-{key}", "")
    picks: tuple[tuple[str, str | None], ...] = (("judge", "core_api_accuracy"), ("code", None))
    for key, pick in picks:  # None: the first code offered
        picked = await set_control(page, f"filter-{key}", pick)
        by[key] = (picked, await count(page, "tr.ep-row"))
        await set_control(page, f"filter-{key}", "")
    await set_control(page, "search", episode.split("#")[0], "input")
    ready = "/ of /.test(document.getElementById('ep-count').textContent)"
    await wait_for(page, f"{ready} && document.getElementById('search').value !== ''")
    await asyncio.sleep(0.5)
    by["search"] = await count(page, "tr.ep-row")
    seen.facts.update(listed=listed, filtered=by)
    seen.shots["episodes"] = await screenshot(page)

    await goto(page, f"/run/{run}/grid", "table.grid td.cell a")
    seen.facts["grid_cells"] = await count(page, "table.grid td.cell a")
    seen.shots["grid"] = await screenshot(page)

    await goto(page, f"/run/{run}/ep/{episode}", "#state-h")
    seen.facts["requests"] = await count(page, "table.requests tbody tr")
    seen.facts["tools"] = await count(page, "#shown-tools details.tool")
    seen.facts["prompt"] = await page.evaluate("document.querySelector('#shown-prompt pre').textContent.length")
    seen.facts["fired"] = await count(page, ".result .badge")
    seen.facts["raw"] = await count(page, ".result pre.raw")
    seen.facts["state_rows"] = await count(page, "table.state tbody tr")
    await page.evaluate("document.getElementById('shown-prompt').open = true")
    seen.shots["episode"] = await screenshot(page, max_height=3200)

    await goto(page, f"/compare/{other}/{run}", "table.diffs")
    seen.facts["flipped"] = await count(page, "table.flipped tbody tr")
    seen.shots["compare"] = await screenshot(page)
    seen.facts["errors"] = page.errors()
    return seen
