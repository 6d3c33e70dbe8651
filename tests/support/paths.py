"""Where things are, for tests that start processes or read files beside the code."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
SPIDER = REPO_ROOT.parent / "shared" / "data" / "spider"
"""The real Spider sample beside the checkout; tests that need it skip when it is absent."""
