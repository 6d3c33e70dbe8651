"""Compare an agent's call arguments with gold arguments: exactly, normalised, or with embeddings for free text —
one mode for the run, and per parameter where it says otherwise (``overrides``: ``tool.param``, ``*.param`` or
``tool.*`` -> mode, the most specific first).

Error codes are ``args:missing:<key>``, ``args:extra:<key>`` and ``args:value:<key>`` (top-level keys;
a difference deep inside a nested value is reported on its top-level key).

Rules, in both modes:
- numbers compare numerically (3 == 3.0), but booleans are not numbers (True != 1);
- lists compare in order; dicts key by key; strings exactly;
- a parameter given on one side only counts as equal when the tool schema's default for it
  (``schema["properties"][key]["default"]``) equals the other side's value.

Normalised mode (``judges.common.value_normalise``): strings that are the same value written differently match — numbers
(``"25"`` / ``"25.0"`` / ``"$1,200"``), dates and times in equivalent formats, case, accents, punctuation, ``&``,
state abbreviations (``"Miami, FL"`` / ``"Miami, Florida"``) — and a number matches a string reading as it. Strings
the schema constrains stay exact.

In every mode a gold call's ``accepted`` values (other values a parameter may take, the leaderboard's possible
answers) match as the gold value does, and the parameters the goal leaves free (``Goal.free_arguments``: optional
arguments the task does not constrain) are not compared at all.

Embedding mode relaxes free-text strings only: after exact equality, case- and whitespace-folded
equality (cheap), then cosine similarity >= threshold. Strings the schema constrains (``enum``,
``const``, ``format``, ``pattern``) stay exact, and so do strings whose numbers differ ("21 degrees"
vs "22 degrees", "dev_123" vs "dev_124" embed almost identically but mean different things).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np

from judges.common.episode_memo import open_values
from judges.common.value_normalise import same_number_and_text, same_text
from sim.core import EpisodeResult

MatchMode = Literal["exact", "normalised", "embedding", "llm"]
MATCH_MODES: tuple[MatchMode, ...] = ("exact", "normalised", "embedding", "llm")

_NUMBER_RE = re.compile(r"\d+(?:\.\d+)?")
_CONSTRAINTS = ("enum", "const", "format", "pattern")


class TextEmbedder(Protocol):
    """What the matcher needs from an embedder (``sim.core.embedding.Embedder`` is one)."""

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...

    def similarity(self, a: str, b: str) -> float: ...


class ValueVerdicts(Protocol):
    """A model's verdicts on value pairs, asked before judging (``judges.calls.arg_match_llm.LLMValues`` is one)."""

    def decided(self, a: str, b: str) -> bool: ...

    async def prepare(self, matcher: ArgMatcher, result: EpisodeResult) -> None: ...


def normalise(value: Any) -> Any:
    """A canonical JSON-like form: integral floats become ints, tuples lists, dict keys strings."""
    if isinstance(value, str):
        return value  # the common leaf, before the slower Mapping check
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, (dict, Mapping)):  # a dict first: no abc check for the usual kind
        return {str(k): normalise(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [normalise(v) for v in value]
    return value


@dataclass(frozen=True)
class ArgMatcher:
    """Argument comparison for judges. ``embedder`` is required in embedding mode (created when omitted)."""

    mode: MatchMode = "exact"
    threshold: float = 0.8
    embedder: TextEmbedder | None = None
    overrides: tuple[tuple[str, MatchMode], ...] = ()
    """(``tool.param`` | ``*.param`` | ``tool.*``, mode): parameters matched otherwise than ``mode``."""
    llm_values: ValueVerdicts | None = None
    """The model's verdicts on value pairs; required where any mode is llm (``judges.calls.arg_match_llm``)."""

    def __post_init__(self) -> None:
        for mode in (self.mode, *(m for _, m in self.overrides)):
            if mode not in MATCH_MODES:
                raise ValueError(f"unknown argument match mode {mode!r}; known: {', '.join(MATCH_MODES)}")
        object.__setattr__(self, "_by_key", dict(self.overrides))
        if self.uses("llm") and self.llm_values is None:
            raise ValueError("--arg-match llm needs a judge model (--judge-model)")
        wants_embedder = "embedding" in (self.mode, *(m for _, m in self.overrides))
        if wants_embedder and self.embedder is None:
            from sim.core.embedding import Embedder  # heavy dependencies: only when asked for

            object.__setattr__(self, "embedder", Embedder())

    def uses(self, mode: MatchMode) -> bool:
        return mode in (self.mode, *(m for _, m in self.overrides))

    async def prepare(self, result: EpisodeResult) -> None:
        """Ask the judge model, before comparing, about every value pair of ``result`` it will decide (llm mode)."""
        if self.llm_values is not None:
            await self.llm_values.prepare(self, result)

    def mode_for(self, tool: str, key: str) -> MatchMode:
        """The mode for one parameter: ``tool.param``, then ``*.param``, then ``tool.*``, then the run's."""
        by_key: dict[str, MatchMode] = self._by_key  # type: ignore[attr-defined]
        if not by_key:
            return self.mode
        for pattern in (f"{tool}.{key}", f"*.{key}", f"{tool}.*"):
            if pattern in by_key:
                return by_key[pattern]
        return self.mode

    def match(
        self,
        agent_args: Mapping[str, Any],
        gold_args: Mapping[str, Any],
        schema: Mapping[str, Any] | None = None,
        tool: str = "",
        accepted: Mapping[str, Sequence[Any]] | None = None,
        free: frozenset[str] = frozenset(),
    ) -> tuple[bool, list[str]]:
        """Whether the agent's arguments match the gold ones, and the ``args:<reason>:<key>`` codes if not.
        ``accepted``: other values each parameter may take (``GoldCall.accepted``); ``free``: parameters the goal
        does not constrain (``Goal.free_in``), never compared."""
        ok, errors = self._verdict(agent_args, gold_args, schema, tool, accepted, free)
        return ok, list(errors)

    def matches(
        self,
        agent_args: Mapping[str, Any],
        gold_args: Mapping[str, Any],
        schema: Mapping[str, Any] | None = None,
        tool: str = "",
        accepted: Mapping[str, Sequence[Any]] | None = None,
        free: frozenset[str] = frozenset(),
    ) -> bool:
        """``match(...)[0]``."""
        return self._verdict(agent_args, gold_args, schema, tool, accepted, free)[0]

    def _verdict(
        self,
        agent_args: Mapping[str, Any],
        gold_args: Mapping[str, Any],
        schema: Mapping[str, Any] | None,
        tool: str,
        accepted: Mapping[str, Sequence[Any]] | None,
        free: frozenset[str],
    ) -> tuple[bool, tuple[str, ...]]:
        """The comparison, once per pair of argument objects while an episode is judged
        (``judges.common.episode_memo``):
        several judges compare the same calls with the same gold, and a comparison depends on nothing else (in llm
        mode every judge has prepared the episode's verdicts before it compares)."""
        values = open_values()
        if values is None:
            ok, errors = self._match(agent_args, gold_args, schema, tool, accepted, free)
            return ok, tuple(errors)
        key = ("match", id(self), id(agent_args), id(gold_args), id(schema), tool, id(accepted), free)
        kept = values.get(key)
        if kept is None:
            # The compared objects stay in the memo with the verdict: their ids cannot be reused while it lives.
            ok, errors = self._match(agent_args, gold_args, schema, tool, accepted, free)
            kept = values[key] = ((ok, tuple(errors)), agent_args, gold_args, schema, accepted, self)
        verdict: tuple[bool, tuple[str, ...]] = kept[0]
        return verdict

    def _match(
        self,
        agent_args: Mapping[str, Any],
        gold_args: Mapping[str, Any],
        schema: Mapping[str, Any] | None,
        tool: str,
        accepted: Mapping[str, Sequence[Any]] | None,
        free: frozenset[str],
    ) -> tuple[bool, list[str]]:
        agent, gold = normalise(agent_args), normalise(gold_args)
        if free:  # the goal does not constrain them: absent, present or any value, all the same
            agent = {k: v for k, v in agent.items() if k not in free}
            gold = {k: v for k, v in gold.items() if k not in free}
        props = schema_properties(schema)
        if self.embedder is not None:
            self._prefetch(agent, gold, props, tool)
        errors: list[str] = []
        for key, expected in gold.items():
            if key not in agent:
                if not self._equals_default(props, key, expected):
                    errors.append(f"args:missing:{key}")
            elif not any(
                self.equal(agent[key], option, free_text(props.get(key)), self.mode_for(tool, key))
                for option in (expected, *(normalise(v) for v in (accepted or {}).get(key, ())))
            ):
                errors.append(f"args:value:{key}")
        errors.extend(
            f"args:extra:{key}"
            for key, value in agent.items()
            if key not in gold and not self._equals_default(props, key, value)
        )
        return not errors, errors

    def equal(self, a: Any, b: Any, free_text: bool = True, mode: MatchMode | None = None) -> bool:
        """Whether two normalised values match under ``mode`` (default: this matcher's)."""
        mode = mode or self.mode
        if isinstance(a, str) and isinstance(b, str):
            return self._strings_match(a, b, free_text, mode)
        if isinstance(a, bool) or isinstance(b, bool):
            return type(a) is type(b) and a == b
        if isinstance(a, dict) and isinstance(b, dict):
            return a.keys() == b.keys() and all(self.equal(a[k], b[k], free_text, mode) for k in a)
        if isinstance(a, list) and isinstance(b, list):
            return len(a) == len(b) and all(self.equal(x, y, free_text, mode) for x, y in zip(a, b, strict=True))
        if mode != "exact" and free_text and isinstance(a, str) != isinstance(b, str):
            number, text = (b, a) if isinstance(a, str) else (a, b)
            if isinstance(number, int | float) and isinstance(text, str):
                return same_number_and_text(number, text)
        if isinstance(a, dict | list | str) or isinstance(b, dict | list | str):
            return False  # different shapes
        return bool(a == b)

    def _strings_match(self, a: str, b: str, free_text: bool, mode: MatchMode) -> bool:
        if a == b:
            return True
        if mode == "exact" or not free_text:
            return False
        if same_text(a, b):
            return True
        if mode == "normalised" or not _embeddable(a, b):
            return False
        if mode == "llm":
            assert self.llm_values is not None  # checked in __post_init__
            return self.llm_values.decided(a, b)
        assert self.embedder is not None  # set in __post_init__ when any mode is embedding
        return self.embedder.similarity(a, b) >= self.threshold

    def _equals_default(self, props: Mapping[str, Any], key: str, value: Any) -> bool:
        spec = props.get(key)
        if not isinstance(spec, Mapping) or "default" not in spec:
            return False
        return self.equal(normalise(spec["default"]), value, free_text(spec))

    def _prefetch(self, agent: dict[str, Any], gold: dict[str, Any], props: Mapping[str, Any], tool: str) -> None:
        """Embed every string pair the comparison will need in one batch; later lookups hit the cache."""
        texts: list[str] = []
        for key in agent.keys() & gold.keys():
            if free_text(props.get(key)) and self.mode_for(tool, key) == "embedding":
                collect_pairs(agent[key], gold[key], texts)
        if texts and self.embedder is not None:
            self.embedder.encode(texts)


def collect_pairs(a: Any, b: Any, out: list[str]) -> None:
    if isinstance(a, str) and isinstance(b, str):
        if a != b and _embeddable(a, b) and not same_text(a, b):
            out.extend((a, b))
    elif isinstance(a, dict) and isinstance(b, dict):
        for key in a.keys() & b.keys():
            collect_pairs(a[key], b[key], out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for x, y in zip(a, b, strict=True):
            collect_pairs(x, y, out)


def schema_properties(schema: Mapping[str, Any] | None) -> Mapping[str, Any]:
    props = schema.get("properties") if isinstance(schema, (dict, Mapping)) else None
    return props if isinstance(props, (dict, Mapping)) else {}


def free_text(spec: Any) -> bool:
    """True unless the schema constrains the value to codes (enum, const, format, pattern)."""
    return not (isinstance(spec, (dict, Mapping)) and any(k in spec for k in _CONSTRAINTS))


def _embeddable(a: str, b: str) -> bool:
    return _NUMBER_RE.findall(a) == _NUMBER_RE.findall(b)
