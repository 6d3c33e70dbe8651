"""A run started without --run-id is named after its start time, and never after a run already in the folder."""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from pathlib import Path

import pytest

from sim.config import run_config
from sim.config.run_config import default_run_id


class _Frozen(datetime):
    @classmethod
    def now(cls, tz: tzinfo | None = None) -> _Frozen:
        return cls(2026, 11, 29, 12, 1, 28, tzinfo=UTC)


def test_runs_started_in_the_same_second_get_their_own_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_config, "datetime", _Frozen)
    names = []
    for _ in range(3):
        names.append(default_run_id(tmp_path))
        (tmp_path / names[-1]).mkdir()  # the run made its folder
    assert names == ["20261129-120128", "20261129-120128-2", "20261129-120128-3"]
