"""Commands that run for minutes say how far they are on stderr while stdout stays their table or JSON:
`python -m sim.bench.world_build` (one line per world) and `squall bench` (one line per arm)."""

from __future__ import annotations

import pytest

from sim.bench import command, world_build


def test_world_build_says_which_world_it_measures(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(world_build, "known_worlds", lambda: ["smart_home"])
    assert world_build.main(["--episodes", "3"]) == 0
    out, err = capsys.readouterr()
    assert "[1/1] smart_home: 3 builds" in err
    assert out.splitlines()[1].startswith("smart_home ") and "builds" not in out


def test_bench_says_which_arm_it_runs(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    measured = {"wall_s": 1.0, "achieved": 1.0, "cpu_ms_per_request": 1.0}
    monkeypatch.setattr(command, "run_arm", lambda arm, settings: {"arm": arm, **measured})
    monkeypatch.setattr(command, "with_bounds", lambda result, settings: result)
    settings = command.BenchSettings(2, 1, 0.01, 0.0, None, None, "mix", 1.0, ("squall", "static"))
    report = command.run_bench(settings)
    out, err = capsys.readouterr()
    assert out == "" and report["static"] == {"arm": "static", **measured}
    assert "bench: arm squall (1/2)" in err and "bench: arm static done in" in err
