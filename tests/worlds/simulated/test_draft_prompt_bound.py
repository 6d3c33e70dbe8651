"""Draft prompts fit a context: on a generated 250-operation spec whose whole schemas are far over the bound, every
draft's prompt (counted again with ``sim.llm.tokens.count_messages``, tiktoken's o200k) is under
``--max-prompt-tokens``, offers related operations (search: the seed's resource; tag: only its tag), and seeds go
round-robin so that drafts cover the spec; a bound too small for one operation is refused, naming it."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from sim.llm.tokens import count_messages, count_tokens
from tests.worlds.simulated.many_operations import many_operations_spec
from worlds.simulated.canonical import canonical_json
from worlds.simulated.draft_prompt import GROUPINGS, Grouping, OperationBatches, build_prompt, sketch
from worlds.simulated.openapi_import import import_openapi
from worlds.simulated.operations import ApiOperation


@cache
def operations() -> tuple[ApiOperation, ...]:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "many.json"
        path.write_text(json.dumps(many_operations_spec()), encoding="utf-8")
        return import_openapi(path, "many").operations


def drafts(grouping: Grouping, n: int, bound: int, max_operations: int = 16) -> list[tuple[str, ...]]:
    batches = OperationBatches(operations(), grouping)
    offered = []
    for i in range(n):
        built = build_prompt("Many", batches, lambda _name: [], [f"task {k}" for k in range(i)], i, n,
                             count_tokens, bound, max_operations)  # fmt: skip
        wire = [{"role": m.role, "content": m.content} for m in built.messages]
        assert built.tokens <= bound and count_messages(wire) <= bound, (i, built.tokens, count_messages(wire))
        offered.append(built.operations)
    return offered


def test_the_whole_spec_is_far_over_the_bound_that_each_prompt_keeps() -> None:
    whole = sum(count_tokens(canonical_json(op.parameters)) + count_tokens(op.description) for op in operations())
    assert len(operations()) == 250 and whole > 20 * 3_000
    offered = drafts("search", 6, 3_000)
    assert all(1 < len(batch) < 250 for batch in offered)


@pytest.mark.parametrize("grouping", GROUPINGS)
def test_every_prompt_is_under_the_bound_and_batches_stay_related(grouping: Grouping) -> None:
    offered = drafts(grouping, 8, 6_000, max_operations=10)
    for batch in offered:
        assert len(batch) <= 10
        if grouping in ("search", "tag"):  # the seed's resource: the same tag (r07), or the word in its name
            resource = batch[0].rsplit("_", 1)[1]
            related = sum(name.endswith(resource) for name in batch)
            assert related == len(batch) if grouping == "tag" else related >= len(batch) // 2, batch


def test_seeds_go_round_robin_so_drafts_cover_the_spec() -> None:
    offered = drafts("spec", 25, 12_000, max_operations=10)  # 25 drafts x 10 operations: each offered once
    assert {name for batch in offered for name in batch} == {op.name for op in operations()}
    seeds = [batch[0] for batch in offered]
    assert len(set(seeds)) == 25


def test_a_bound_too_small_for_one_operation_is_refused_naming_it() -> None:
    batches = OperationBatches(operations(), "search")
    with pytest.raises(ValueError, match=r"--max-prompt-tokens 200 is too small: .* operation list_r00"):
        build_prompt("Many", batches, lambda _name: [], [], 0, 1, count_tokens, 200, 16)


def test_schemas_are_sketched_not_copied() -> None:
    schema = {
        "type": "object",
        "required": ["id"],
        "properties": {"id": {"type": "string"}, "tags": {"type": "array", "items": {"enum": ["a", "b"]}}},
    }
    assert sketch(schema) == "{id*: string, tags: [one of a|b]}"
    assert sketch({"type": "integer", "default": 50}) == "integer = 50"
