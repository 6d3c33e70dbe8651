"""Which operations of a document an import keeps (``squall import openapi --include/--exclude``).

A selector is a tag (``Guilds``), a path glob (``/guilds/*``, ``/users/{user.id}``: starts with ``/``) or an
operation id (the document's ``operationId`` or the tool name it becomes); tags and ids may be globs too
(``*_message``), matched case-sensitively with ``fnmatch``'s ``*``, ``?`` and ``[...]``. With ``include`` an
operation is kept when any include selector matches it; then any matching ``exclude`` selector leaves it out. A
selector that matches no operation of the document is a mistake (a typo keeps nothing or everything quietly), so
``unmatched`` names each, with the tags the document has.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase


@dataclass
class Selection:
    """Include and exclude selectors, and which of them matched some operation so far."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    matched: set[str] = field(default_factory=set)
    tags: set[str] = field(default_factory=set)
    """Every tag seen, for the message about a selector that matched nothing."""

    def __post_init__(self) -> None:
        for option, selectors in (("--include", self.include), ("--exclude", self.exclude)):
            for selector in selectors:
                if not selector.strip():
                    raise ValueError(f"{option}: an empty selector (give a tag, a /path glob or an operation id)")

    @property
    def active(self) -> bool:
        return bool(self.include or self.exclude)

    def keeps(self, path: str, ids: Iterable[str], tags: Iterable[str]) -> bool:
        """Whether the operation at ``path`` (its ids: operationId and tool name; its tags) is imported."""
        ids, tags = tuple(ids), tuple(tags)
        self.tags.update(tags)
        hits = {selector for selector in (*self.include, *self.exclude) if _matches(selector, path, ids, tags)}
        self.matched |= hits
        included = not self.include or any(selector in hits for selector in self.include)
        return included and not any(selector in hits for selector in self.exclude)

    def unmatched(self) -> list[str]:
        """One line per selector that matched no operation."""
        known = ", ".join(sorted(self.tags)[:30]) or "none"
        return [
            f"{option} {selector!r} matches no operation (no tag, path or operation id like it; tags: {known})"
            for option, selectors in (("--include", self.include), ("--exclude", self.exclude))
            for selector in selectors
            if selector not in self.matched
        ]


def _matches(selector: str, path: str, ids: tuple[str, ...], tags: tuple[str, ...]) -> bool:
    if selector.startswith("/"):
        return fnmatchcase(path, selector)
    return any(fnmatchcase(name, selector) for name in (*ids, *tags))
