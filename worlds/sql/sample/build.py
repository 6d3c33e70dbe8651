"""Builds the sql_sample database from library.sql: ``python -m worlds.sql.sample.build``.

The built file is committed (worlds load it read-only); rebuild it after editing library.sql. The build is
deterministic: the same SQL gives the same rows (the test suite checks the committed file against the SQL).
"""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
SOURCE = HERE / "library.sql"
TARGET = HERE / "database" / "library" / "library.sqlite"


def build(source: Path = SOURCE, target: Path = TARGET) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as staging:
        built = Path(staging) / target.name
        connection = sqlite3.connect(built)
        try:
            connection.executescript(source.read_text(encoding="utf-8"))
            connection.commit()
            connection.execute("VACUUM")
        finally:
            connection.close()
        built.replace(target)
    return target


if __name__ == "__main__":
    print(build())
