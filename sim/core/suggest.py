"""``did you mean``: the known name closest to a mistyped one, for error messages that name the fix."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(given: str, known: Iterable[str]) -> str:
    """``" (did you mean 'multidomain'?)"`` when one known name is close to ``given``; else ''."""
    close = difflib.get_close_matches(given, list(known), n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""
