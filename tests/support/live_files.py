"""Reading files another task or process is still writing: a JSON-lines file may end mid-line while the writer is
at work, so only complete lines (ending in a newline) count."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def complete_lines(path: Path) -> list[str]:
    """The file's lines that are whole; a missing file has none."""
    if not path.exists():
        return []
    text = path.read_text()
    return text[: text.rfind("\n") + 1].splitlines()


def json_lines(path: Path) -> list[dict[str, Any]]:
    """Each whole line, parsed."""
    return [json.loads(line) for line in complete_lines(path)]
