"""Whether a rewording of a user's request still asks for the same thing, not only with the same values.

Keeping every protected value verbatim is not enough: a request with no value to protect ("How much power is the
whole house using right now?") would accept "All done." as its rewording, and the agent would then be scored
against gold calls nobody asked for. Two cheap floors run everywhere a wording is chosen — it is not much
shorter than the original, and it shares some of its content words — and where an embedder is at hand
(``squall stressors paraphrase``), the rewording's meaning must also sit close to the original's."""

from __future__ import annotations

import re
from collections.abc import Callable

MIN_WORDS = 3
"""A request of fewer words says too little to stand for another."""
MIN_LENGTH_SHARE = 0.3
"""At least this share of the original's word count."""
MIN_OVERLAP = 0.2
"""At least this share of the original's content words (stemmed), where it has any."""
MIN_SIMILARITY = 0.5
"""Cosine of the two sentence embeddings (MiniLM): measured, real rewordings of shipped requests 0.65-0.91, "All
done." and "Sure, I can do that for you right away." against them 0.02-0.07."""

_WORD = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")
_STOP_WORDS = (
    "a an the and or but to of in on at for by with from as is are was were be been it its this that "
    "these those i me my we our you your he she they them their please could would can will should do "
    "does did just now again also so then than there here what which who how much many some any all "
    "every let lets up out"
)
_STOP = frozenset(_STOP_WORDS.split())


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def content_sequence(text: str) -> list[str]:
    """The text's content words (stemmed, stop words dropped) in their order."""
    words = (w.removesuffix("'s") for w in _WORD.findall(text.lower()))
    return [_stem(w) for w in words if w not in _STOP and len(w) > 1]


def content_words(text: str) -> set[str]:
    return set(content_sequence(text))


def carries_meaning(original: str, candidate: str) -> bool:
    """The length and overlap floors (no embedder needed)."""
    words, original_words = _WORD.findall(candidate.lower()), _WORD.findall(original.lower())
    if len(words) < min(MIN_WORDS, len(original_words)) or len(words) < MIN_LENGTH_SHARE * len(original_words):
        return False
    wanted = content_words(original)
    return not wanted or len(wanted & content_words(candidate)) >= MIN_OVERLAP * len(wanted)


def close_in_meaning(similarity: Callable[[str, str], float], original: str, candidate: str) -> bool:
    """The embedding check: ``similarity`` is a cosine (``sim.core.embedding.Embedder.similarity``)."""
    return similarity(original, candidate) >= MIN_SIMILARITY
