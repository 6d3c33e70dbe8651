"""Every file or folder of the repository the README and docs/ name in code (`sim/...`, `tests/...`) exists: a module
that moves takes its mentions along."""

from __future__ import annotations

import re

from tests.docs.test_documented_commands import PAGES
from tests.support.paths import REPO_ROOT

_NAMED = re.compile(r"`((?:sim|worlds|judges|personas|tests|scripts|examples|docs)/[^`\s]*)`")


def test_every_path_the_docs_name_exists() -> None:
    missing = []
    for page in PAGES:
        for path in _NAMED.findall(page.read_text(encoding="utf-8")):
            path = path.split(":")[0]  # `module.py:function`
            if "…" in path or "<" in path:  # an elided or templated path names no one file
                continue
            if not any(REPO_ROOT.glob(path)):
                missing.append(f"{page.relative_to(REPO_ROOT)}: {path}")
    assert not missing, missing
