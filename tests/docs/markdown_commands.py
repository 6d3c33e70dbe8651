"""The shell commands a Markdown page documents, and the files it shows.

A command is a line of a fenced ``bash``, ``sh``, ``shell`` or ``console`` block (in a ``console`` block only the
lines after ``$ ``; the rest is output), with ``\\``-continued lines joined. It is expected to exit 0 unless a
trailing comment says ``# exit N``. A fenced block whose info string has ``title="NAME"`` is a file the page shows;
the docs test writes it before the page's commands run.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SHELL_LANGUAGES = frozenset({"bash", "sh", "shell", "console"})
_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})\s*(?P<info>.*)$")
_EXIT = re.compile(r"#\s*exit\s+(\d+)\b")
_TITLE = re.compile(r'title="([^"]+)"')


@dataclass(frozen=True)
class Command:
    page: str  # the page's path from the repository root
    line: int  # 1-based line of the command in the page
    text: str  # as written, comments included
    expect: int  # the exit status the page promises

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


@dataclass(frozen=True)
class ShownFile:
    name: str  # the title: a path relative to the folder the commands run in
    text: str


@dataclass(frozen=True)
class Block:
    line: int  # 1-based line of the block's first content line
    info: str  # the fence's info string: language and attributes
    lines: tuple[str, ...]

    @property
    def language(self) -> str:
        return self.info.split(maxsplit=1)[0].lower() if self.info else ""


def fenced_blocks(text: str) -> Iterator[Block]:
    """Every fenced code block of a Markdown text, its lines stripped of the fence's indentation."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, fence = len(opening["indent"]), opening["fence"]
        body: list[str] = []
        i += 1
        start = i + 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        yield Block(start, opening["info"].strip(), tuple(body))
        i += 1


def commands(page: Path, root: Path) -> list[Command]:
    """The page's commands, in order."""
    found: list[Command] = []
    name = page.relative_to(root).as_posix()
    for block in fenced_blocks(page.read_text(encoding="utf-8")):
        if block.language not in SHELL_LANGUAGES:
            continue
        pending: tuple[int, str] | None = None
        for offset, raw in enumerate(block.lines):
            line = raw.rstrip()
            if pending is None:
                if block.language == "console":
                    if not line.startswith("$ "):
                        continue
                    line = line[2:]
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                pending = (block.line + offset, "")
            start, text = pending
            if line.endswith("\\"):
                pending = (start, text + line[:-1] + " ")
                continue
            text += line
            found.append(Command(name, start, text.strip(), _expected_exit(text)))
            pending = None
    return found


def shown_files(page: Path) -> list[ShownFile]:
    """The files the page shows with a title, in order."""
    files = []
    for block in fenced_blocks(page.read_text(encoding="utf-8")):
        title = _TITLE.search(block.info)
        if title:
            files.append(ShownFile(title.group(1), "\n".join(block.lines) + "\n"))
    return files


def _expected_exit(text: str) -> int:
    marked = _EXIT.search(text)
    return int(marked.group(1)) if marked else 0
