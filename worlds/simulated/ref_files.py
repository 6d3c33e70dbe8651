"""The files an OpenAPI document's ``$ref``s name: the spec itself, and other files in the spec's folder.

A split spec (``$ref: schemas/pet.yaml#/Pet``) is read file by file, each once and within the same limits as the
spec. Only files under the spec's own folder are read: a path that leaves it (``../secrets.yaml``, an absolute
path, a link out) is refused, and so is a URL: the import never reaches beyond the folder it was given.

Places in these files are written ``LABEL#POINTER`` (``schemas/pet.yaml#/Pet``, the label relative to the spec's
folder); places in the spec itself are plain JSON pointers (``/components/schemas/Pet``), as before.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote

from worlds.simulated.problems import SpecError
from worlds.simulated.spec_files import load_document

MAX_FILES = 200
"""Files one import may read besides the spec (a generated split spec has one per schema at most)."""
_REMOTE = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*:|//)")


def split_where(where: str) -> tuple[str, str]:
    """(file label, JSON pointer) of a place; the label is ``""`` for the spec itself."""
    if where == "" or where.startswith("/"):
        return "", where
    label, _, pointer = where.partition("#")
    return label, pointer


def join_where(label: str, pointer: str) -> str:
    return f"{label}#{pointer}" if label else pointer


class RefFiles:
    """The spec's document and every other file its references reached, read once each."""

    def __init__(self, spec: Path, document: Any) -> None:
        self.folder = spec.resolve().parent
        self._spec = spec.resolve()
        self._documents: dict[str, Any] = {"": document}
        self._unreadable: dict[str, str] = {}

    @property
    def labels(self) -> list[str]:
        """The other files read so far, as labels."""
        return [label for label in self._documents if label]

    def document(self, label: str) -> Any:
        return self._documents[label]

    def open(self, name: str, base: str) -> tuple[str, Any] | str:
        """(label, document) of the file ``name`` (a reference's part before ``#``) seen from file ``base``, or
        why it cannot be read."""
        if _REMOTE.match(name):
            return "remote references are not fetched: only files in the spec's folder are read"
        relative = unquote(name)
        if PurePosixPath(relative).is_absolute() or Path(relative).is_absolute():
            return "an absolute path: only files in the spec's folder (relative paths) are read"
        path = (self.folder / base if base else self._spec).parent / relative
        try:
            resolved = path.resolve()
        except (OSError, RuntimeError) as error:  # a link loop
            return f"cannot be read: {error}"
        if not resolved.is_relative_to(self.folder):
            return "leaves the spec's folder: only files in it are read"
        if resolved == self._spec:
            return "", self._documents[""]
        label = resolved.relative_to(self.folder).as_posix()
        if "#" in label:
            return "a file name with '#' is not supported"
        if label in self._unreadable:
            return self._unreadable[label]
        if label not in self._documents:
            if len(self._documents) > MAX_FILES:
                return f"more than {MAX_FILES} files referenced; refused"
            try:
                self._documents[label] = load_document(resolved)
            except SpecError as error:
                self._unreadable[label] = f"cannot be read: {error.lines[0] if error.lines else error}"
                return self._unreadable[label]
        return label, self._documents[label]
