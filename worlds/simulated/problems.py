"""Problems found in an imported file, each named by file and JSON pointer, all reported together.

An importer collects every problem it can find in one pass (up to ``MAX_PROBLEMS``) instead of stopping at the
first, so a user fixes a spec in one round: ``api.yaml#/paths/~1pets/get/parameters/0: 'in' must be one of ...``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

MAX_PROBLEMS = 50
"""Problems listed in one error; the rest are counted (a broken generator can produce thousands)."""


def escape(part: str | int) -> str:
    """One JSON pointer segment (RFC 6901: ``~`` -> ``~0``, ``/`` -> ``~1``)."""
    return str(part).replace("~", "~0").replace("/", "~1")


def pointer(*parts: str | int) -> str:
    """The JSON pointer of ``parts`` (``pointer("paths", "/pets")`` -> ``/paths/~1pets``); ``""`` for none."""
    return "".join(f"/{escape(part)}" for part in parts)


def extend(base: str, *parts: str | int) -> str:
    return base + pointer(*parts)


class SpecError(ValueError):
    """An input that cannot be imported; ``lines`` holds one line per problem (file and pointer first)."""

    def __init__(self, lines: Iterable[str]) -> None:
        unique = list(dict.fromkeys(lines))
        self.total = len(unique)
        self.lines: tuple[str, ...] = tuple(unique[:MAX_PROBLEMS])
        more = f" (and {self.total - len(self.lines)} more)" if self.total > len(self.lines) else ""
        super().__init__(f"{self.total} problem(s){more}: " + "; ".join(self.lines))


class Problems:
    """The problems of one file, in the order found; duplicates (a shared component seen from many places) once."""

    def __init__(self, file: str) -> None:
        self.file = file
        self._lines: dict[str, None] = {}

    def add(self, where: str, message: str) -> None:
        """``where`` is a JSON pointer into the file (``""``: the whole document), or ``LABEL#POINTER`` in another
        file its references reached (the label relative to the file's folder)."""
        self._lines[f"{self.place(where)}: {message}"] = None

    def place(self, where: str) -> str:
        if where == "" or where.startswith("/"):
            return f"{self.file}#{where}"
        return str(Path(self.file).parent / where)

    def add_line(self, line: str) -> None:
        """A problem already worded with its place (a YAML syntax error names its line)."""
        self._lines[line] = None

    @property
    def lines(self) -> list[str]:
        return list(self._lines)

    def __len__(self) -> int:
        return len(self._lines)

    def raise_if_any(self) -> None:
        if self._lines:
            raise SpecError(self._lines)
