"""Partially irrelevant information: sponsored or tracking entries mixed into a correct list result.

Search and feed APIs interleave promoted items shaped exactly like real ones and marked only by a flag
(``"sponsored": true``, an ``ad_id``). The agent must pick the real entries out and not act on an ad; with
a large ``size`` the result also becomes long (thousands of tokens), so it is a long-context test too. The
real entries are never removed, changed or reordered; the injected ones get fresh ids that the world does
not know, so acting on one fails the way acting on any unknown id does.

Params: ``list_key`` (the list in the result; default: the first list of objects), ``size`` (entries to
inject), ``marker`` (fields added to every injected entry; ``{hex}`` in a string becomes seeded hex),
``fields`` (``{key: [values...]}``: pools the injected entries draw these keys from, e.g. titles),
``id_prefix`` (start of the injected ids, default ``sp_``).
"""

from __future__ import annotations

import random
from typing import Any

from sim.core import CallContext, CallNext, CallOutcome, ToolCall
from worlds.stressors.scenario import ScenarioStressor

ID_KEYS = frozenset({"id", "symbol"})


def is_id_key(key: str) -> bool:
    return key in ID_KEYS or key.endswith("_id")


def list_key(content: Any, wanted: str | None) -> str | None:
    """The key of the list of objects to inject into, if the result has one with at least one entry."""
    if not isinstance(content, dict):
        return None
    keys = [wanted] if wanted else list(content)
    for key in keys:
        value = content.get(key)
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            return key
    return None


class Irrelevant(ScenarioStressor):
    """Interleaves seeded sponsored entries into the targeted list results."""

    def _hex(self, rng: random.Random, n: int = 8) -> str:
        return f"{rng.getrandbits(4 * n):0{n}x}"

    def _fake(self, template: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        pools: dict[str, list[Any]] = self.params.get("fields", {})
        prefix = str(self.params.get("id_prefix", "sp_"))
        entry: dict[str, Any] = {}
        for key, value in template.items():
            if pools.get(key):
                entry[key] = rng.choice(pools[key])
            elif is_id_key(key) and isinstance(value, str):
                entry[key] = f"{prefix}{self._hex(rng, 6)}"
            elif isinstance(value, float):
                entry[key] = round(value * rng.uniform(0.7, 1.3), 2)
            else:
                entry[key] = value
        for key, value in dict(self.params.get("marker", {"sponsored": True})).items():
            entry[key] = value.replace("{hex}", self._hex(rng)) if isinstance(value, str) else value
        return entry

    async def on_call(self, call: ToolCall, ctx: CallContext, next: CallNext) -> CallOutcome:
        outcome = await next(call)
        result = outcome.result
        if not result.ok:
            return outcome
        key = list_key(result.content, self.params.get("list_key"))
        if key is None or not self.targets(call):
            return outcome
        real: list[dict[str, Any]] = list(result.content[key])
        entries: list[dict[str, Any]] = list(real)
        rng = self.rng
        for n in range(int(self.params.get("size", 3))):
            fake = self._fake(rng.choice(real), rng)
            # The first ad leads the list, as promoted results do; the rest land anywhere.
            entries.insert(0 if n == 0 else rng.randint(0, len(entries)), fake)
        return outcome.replaced(result.model_copy(update={"content": {**result.content, key: entries}}), self.name)


STRESSOR = Irrelevant
