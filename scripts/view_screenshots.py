"""Regenerate docs/view.md's screenshots of ``squall view`` from real runs: four agents on smart_home under the same
stressors (the oracle, the naive baseline, the null agent, and a model agent answering through the mock
OpenAI-compatible server), written as a static viewer and walked in headless Chromium (tests/support/view_tour.py).

    .venv/bin/python scripts/view_screenshots.py            # writes docs/view/*.png
"""

from __future__ import annotations

import argparse
import asyncio
import io
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402

from tests.support.cdp import chromium_page  # noqa: E402
from tests.support.cli import squall  # noqa: E402
from tests.support.mockllm_server import mock_llm_server  # noqa: E402
from tests.support.view_tour import fired_episode, tour  # noqa: E402

COMMON = ("--world", "smart_home", "--limit", "6", "--trials", "3", "--stressors", "outage,failure", "-q")
KEPT = {"runs": 1100, "episode": 1500}
"""The screenshots docs/view.md shows, each cut to this many pixels from the top."""


def make_runs(out: Path) -> None:
    with mock_llm_server({"policy": {"kind": "first_tool"}}) as server:
        agents = {"model": f"openai-chat:mock-model@{server.url}", "oracle": "oracle", "naive": "naive", "null": "null"}
        for run_id, agent in agents.items():
            code, _, err = squall("run", "--agent", agent, *COMMON, "--out", str(out), "--run-id", run_id)
            if code != 0:
                raise SystemExit(f"squall run --agent {agent} failed ({code}): {err}")


def small_png(png: bytes, height: int) -> bytes:
    """Cut to ``height`` and stored with a 64-colour palette: the docs' images stay small."""
    img = Image.open(io.BytesIO(png)).convert("RGB")
    img = img.crop((0, 0, img.width, min(height, img.height))).quantize(colors=64)
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


async def shoot(site: Path, runs: Path, profile: Path) -> dict[str, bytes]:
    binary = shutil.which("chromium")
    if binary is None:
        raise SystemExit("chromium is not installed (scripts/setup_browser.sh installs it)")
    episode, scenario = fired_episode(runs / "model")
    async with chromium_page(binary, profile) as page:
        seen = await tour(page, (site / "index.html").as_uri(), "model", "oracle", episode, scenario)
    if seen.facts["errors"]:
        raise SystemExit(f"the page logged errors: {seen.facts['errors']}")
    return seen.shots


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "view", help="folder for the PNGs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="squall-view-shots-") as tmp:
        runs, site = Path(tmp) / "runs", Path(tmp) / "site"
        make_runs(runs)
        code, _, err = squall("view", str(runs), "--out", str(site))
        if code != 0:
            raise SystemExit(f"squall view --out failed ({code}): {err}")
        shots = asyncio.run(asyncio.wait_for(shoot(site, runs, Path(tmp) / "profile"), 180))
    args.out.mkdir(parents=True, exist_ok=True)
    for name, height in KEPT.items():
        path = args.out / f"{name}.png"
        path.write_bytes(small_png(shots[name], height))
        print(f"{path}: {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
