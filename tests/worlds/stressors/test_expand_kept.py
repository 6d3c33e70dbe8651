"""What the expansion keeps between episodes gives what computing it afresh gives: neighbours and rankings."""

from __future__ import annotations

from sim.core import ToolSpec
from sim.core.frozen import thaw
from worlds.domains.smart_home.specs import SPECS
from worlds.stressors.expand.templates import TEMPLATES, Candidate, _render, templated_candidates
from worlds.stressors.expand.toolkit import _tokens, lexical_pool


def _fresh_candidates(specs: list[ToolSpec]) -> list[Candidate]:
    """The templated candidates as written before any were kept."""
    seen, out = {s.name for s in specs}, list[Candidate]()
    for source in specs:
        for template in TEMPLATES:
            candidate = _render(template, source) if template.applies(source) else None
            if candidate is not None and candidate.spec.name not in seen:
                seen.add(candidate.spec.name)
                out.append(candidate)
    return out


def _renamed(spec: ToolSpec, suffix: str, minimum: float | None = None) -> ToolSpec:
    parameters = thaw(spec.parameters)
    for schema in parameters.get("properties", {}).values():
        if minimum is not None and "minimum" in schema:
            schema["minimum"] = minimum
    return spec.model_copy(update={"name": spec.name + suffix, "parameters": parameters})


def test_kept_neighbours_are_the_rendered_ones() -> None:
    specs = list(SPECS)
    assert templated_candidates(specs) == _fresh_candidates(specs)
    assert templated_candidates(specs) == _fresh_candidates(specs)  # the second time from what was kept
    # A schema equal as a dict but not as JSON (0 against 0.0) is rendered anew, not taken for the other.
    floats = [_renamed(s, "", minimum=0.0) for s in specs]
    kept = templated_candidates(floats)
    assert [c.model_dump_json() for c in kept] == [c.model_dump_json() for c in _fresh_candidates(floats)]


def test_lexical_ranking_is_the_stable_sort_by_overlap() -> None:
    specs = tuple(_renamed(s, "_v2") for s in SPECS)
    pool = lexical_pool(specs)
    for spec in specs:
        mine = pool._tokens[spec.name]
        others = [n for n in pool._tokens if n != spec.name]

        def overlap(name: str, mine: frozenset[str] = mine) -> float:
            theirs = pool._tokens[name]
            return len(mine & theirs) / len(mine | theirs) if mine or theirs else 0.0

        assert list(pool.ranked(spec.name)) == sorted(others, key=lambda n: -overlap(n))
    assert _tokens("Set the power (device_id)") == frozenset({"set", "power", "device", "id"})
