"""Whether a "paraphrase" is a copy: of the request it should reword, or of the instruction that asked for it.

A model asked to reword a request sometimes hands back the request itself (re-cased, re-punctuated, a "please"
added), or echoes the prompt ("Request: <the request>", "Keep the meaning exactly."). Such a text keeps every value
and every content word, so the value and meaning checks keep it; it would then count as a reworded goal that was
never reworded. A copy is: the same content words in the same order as the original (``meaning.content_words``'
stems, stop words and punctuation dropped), a text that holds the whole original, or one that holds a sentence of
the instruction the original does not hold.
"""

from __future__ import annotations

import re

from worlds.stressors.meaning import content_sequence

INSTRUCTION_SENTENCES = (
    "Rewrite this request to an assistant",
    "different ways, as different users would say it",
    "Keep the meaning exactly",
    "Copy these exactly as written",
    "One rewrite per line, nothing else",
)
"""The fixed sentences of ``paraphrases.paraphrase_request``'s prompt (a copy of them is no rewording)."""
_SPACE = re.compile(r"[^a-z0-9]+")


def _flat(text: str) -> str:
    return " " + _SPACE.sub(" ", text.lower()).strip() + " "


def copies(original: str, candidate: str, prompt: str | None = None) -> bool:
    """True when ``candidate`` copies ``original`` or the instruction (``prompt``: the text sent, when known; its
    lines other than the request's are instruction too)."""
    if content_sequence(candidate) == content_sequence(original) or _flat(original) in _flat(candidate):
        return True
    instruction = [*INSTRUCTION_SENTENCES, *(prompt.splitlines() if prompt else ())]
    flat, base = _flat(candidate), _flat(original)
    return any(
        len(part.split()) >= 3 and part in flat and part not in base
        for part in (_flat(s) for s in instruction if s.strip() and original.strip() not in s)
    )
