"""A run's toolkits, stored once each: ``toolkits.jsonl``, one line per distinct list of tool specs shown to an agent.

An episode's record names its toolkit by the sha256 of the toolkit's JSON (``"toolkit_ref"``) instead of carrying
the list: a world's specs are the same for every episode of a run, and a big world's are most of the record (a SEL
world over Spider: 2,896 functions, 1.43 MB in each of 246 episodes). Stressors that change what the agent reads
(drift, expansion, search) make toolkits of their own; each distinct one is one line, keyed by its content.

A line is ``{"sha":"<64 hex>","tools":[...]}``: the sha first, so an index is built from each line's head, and the
``tools`` text exactly the bytes hashed, so a reader checks a toolkit against its name. Content-addressed lines are
idempotent: a duplicate (a second writer, or a resume that did not know a toolkit was stored) is harmless, the first
line of a sha stands. The writer appends a toolkit and fsyncs it before any episode that names it, so a reference
never dangles; a crash leaves at worst a partial last line that no episode names, cut off by ``--resume``.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ValidationError

from sim.core.tools import ToolSpec

TOOLKITS = "toolkits.jsonl"

_HEAD = b'{"sha":"'
_SHA_HEX = 64
_MIDDLE = b'","tools":'
_TOOLS_AT = len(_HEAD) + _SHA_HEX + len(_MIDDLE)
_HEX = re.compile(rb"[0-9a-f]{64}")


class ToolkitError(Exception):
    """A toolkit that cannot be read: a reference to none stored, or a corrupt line (the message names the file)."""


@dataclass(frozen=True, slots=True)
class Toolkit:
    """One toolkit as the store holds it: its name and its whole line (newline included)."""

    sha: str
    line: bytes


def toolkit_of(tools_json: bytes) -> Toolkit:
    """The stored form of a toolkit whose JSON list (``[spec, ...]``) is ``tools_json``."""
    sha = hashlib.sha256(tools_json).hexdigest()
    return Toolkit(sha, b"".join((_HEAD, sha.encode("ascii"), _MIDDLE, tools_json, b"}\n")))


class _ToolkitLine(BaseModel):
    tools: list[ToolSpec]


@dataclass(frozen=True, slots=True)
class _Where:
    lineno: int
    offset: int
    length: int


class StoredToolkits:
    """Reads ``toolkits.jsonl`` of one run folder: an index of sha -> line, built from the lines' heads and extended
    as the file grows (a reader beside a running writer), and the few toolkits last read, parsed once."""

    def __init__(self, root: Path, keep: int = 4) -> None:
        self.path = root / TOOLKITS
        self._index: dict[str, _Where] = {}
        self._scanned = 0  # bytes of whole lines indexed so far
        self._lines = 0
        self._keep = keep
        self._parsed: OrderedDict[str, list[ToolSpec]] = OrderedDict()

    def shas(self) -> set[str]:
        """Every toolkit stored so far."""
        self._scan()
        return set(self._index)

    def has(self, sha: str) -> bool:
        """Whether toolkit ``sha`` is stored (a whole line of it)."""
        if sha not in self._index:
            self._scan()
        return sha in self._index

    def tools(self, sha: str) -> list[ToolSpec]:
        """The specs of toolkit ``sha`` (shared between the episodes that name it: frozen, never to be changed)."""
        parsed = self._parsed.get(sha)
        if parsed is not None:
            self._parsed.move_to_end(sha)
            return parsed
        if sha not in self._index:
            self._scan()  # stored since the last scan (a writer appends a toolkit before the episodes naming it)
        where = self._index.get(sha)
        if where is None:
            raise ToolkitError(f"{self.path}: no toolkit {sha} (the run folder lost its toolkits, or is not whole)")
        with self.path.open("rb") as f:
            f.seek(where.offset)
            line = f.read(where.length)
        tools_json = line[_TOOLS_AT:-2]  # the line ends with '}\n'
        if hashlib.sha256(tools_json).hexdigest() != sha:
            raise ToolkitError(f"{self.path}:{where.lineno}: toolkit {sha} does not match its content (corrupt line)")
        try:
            parsed = _ToolkitLine.model_validate_json(line).tools
        except ValidationError as exc:
            raise ToolkitError(f"{self.path}:{where.lineno}: not a valid toolkit: {exc.errors()[0]['msg']}") from exc
        self._parsed[sha] = parsed
        if len(self._parsed) > self._keep:
            self._parsed.popitem(last=False)
        return parsed

    def _scan(self) -> None:
        """Index the whole lines written since the last scan (a partial last line waits for its newline)."""
        try:
            f = self.path.open("rb")
        except FileNotFoundError:
            return
        with f:
            f.seek(self._scanned)
            for line in f:
                if not line.endswith(b"\n"):
                    return
                self._lines += 1
                if line.strip():
                    sha = self._sha_of(line)
                    self._index.setdefault(sha, _Where(self._lines, self._scanned, len(line)))
                self._scanned += len(line)

    def _sha_of(self, line: bytes) -> str:
        sha = line[len(_HEAD) : len(_HEAD) + _SHA_HEX]
        if not (line.startswith(_HEAD) and line[len(_HEAD) + _SHA_HEX :].startswith(_MIDDLE) and line.endswith(b"}\n")):
            raise ToolkitError(f"{self.path}:{self._lines}: not a toolkit record")
        if _HEX.fullmatch(sha) is None:
            raise ToolkitError(f"{self.path}:{self._lines}: not a toolkit record (its sha is not hex)")
        return sha.decode("ascii")
