"""The wording table: every entry belongs to a primitive, every primitive that reads it finds its entry, and the
shipped conversations are what the composer writes today (byte for byte)."""

from __future__ import annotations

import asyncio
import string

from worlds.domains.multidomain.compose import compose, primitives_by_domain
from worlds.domains.multidomain.pack import CONVERSATIONS, DATA_DIR
from worlds.domains.multidomain.wording import _templates, worded


def test_every_entry_names_a_primitive_and_has_an_explicit_rendering() -> None:
    primitives = {f"{domain}.{p.__name__}" for domain, ps in primitives_by_domain().items() for p in ps}
    table = _templates()
    assert set(table) <= primitives
    assert len(table) >= len(primitives) - 1  # home.movie_night spells its one wording out
    for key, texts in table.items():
        assert texts[0], key
        for text in texts:
            if text is not None:
                list(string.Formatter().parse(text))  # a malformed template fails here, naming nothing silently


def test_a_missing_value_is_an_error_not_a_blank() -> None:
    try:
        worded("home.lock_up")
    except KeyError as missing:
        assert missing.args == ("name",)
    else:
        raise AssertionError("a template was filled without its value")


def test_the_shipped_conversations_are_what_the_composer_writes() -> None:
    tasks = asyncio.run(compose(320, seed=7))
    written = "".join(task.model_dump_json(exclude_defaults=True) + "\n" for task in tasks)
    assert (DATA_DIR / CONVERSATIONS).read_text(encoding="utf-8") == written
