"""`squall stressors expand --check` on a fresh clone: the shipped catalogs pass (to within the embedding's last
digits, which move between CPUs), a world that ships no catalog is not called out of date, a real change is."""

from __future__ import annotations

import pytest

from sim.cli.expand import main
from worlds.stressors.expand.same import same_catalog
from worlds.stressors.expand.toolkit import ExpandCatalog, shipped_catalog


def shipped(world: str) -> ExpandCatalog:
    catalog = shipped_catalog(world)
    assert catalog is not None
    return catalog


def test_last_digit_noise_is_the_same_catalog_and_a_change_is_not() -> None:
    catalog = shipped("smart_home")
    first = catalog.candidates[0]
    noisy = catalog.model_copy(
        update={
            "candidates": [
                first.model_copy(update={"similarity": (first.similarity or 0) - 1e-4}),
                *catalog.candidates[1:],
            ]
        }
    )
    assert same_catalog(noisy, catalog)
    assert not same_catalog(catalog.model_copy(update={"candidates": catalog.candidates[1:]}), catalog)
    renamed = first.model_copy(update={"spec": first.spec.model_copy(update={"name": "other"})})
    assert not same_catalog(catalog.model_copy(update={"candidates": [renamed, *catalog.candidates[1:]]}), catalog)


class NoEncoder:
    def encode(self, texts: list[str]) -> object:
        raise AssertionError("a world without a shipped catalog is not built by --check")


def test_check_skips_a_world_that_ships_no_catalog(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import worlds.registry

    monkeypatch.setattr(worlds.registry, "known_worlds", lambda: ["sql_sample"])
    assert main(["--check"], encoder=NoEncoder()) == 0  # type: ignore[arg-type]
    assert "sql_sample: no catalog shipped" in capsys.readouterr().out
