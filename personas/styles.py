"""User styles as composable text operations on a goal's wording, shared by the scripted and LLM users.

Styles (any combination, except the two pairs that contradict each other):
- ``explicit`` | ``coreferential``: self-contained requests, or later goals leaning on earlier turns ("turn it off");
- ``paraphrased``: one of the goal's other wordings;
- ``terse`` | ``verbose``: politeness stripped, or small talk from the persona around the request;
- ``underspecified``: a value the goal needs is left out until the agent asks (the agent is scored on asking);
- ``impatient``: hurried wording; a question the user cannot answer gets "just do it", not patience;
- ``changes_mind``: one number is first said wrong and corrected in the next turn of the same goal.

Values are found in the wording from the goal's core gold arguments (numbers with their units, and text values
that appear verbatim), so a withheld or changed value is always one the judges score.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from sim.core import Goal

STYLES = (
    "explicit",
    "coreferential",
    "paraphrased",
    "terse",
    "verbose",
    "underspecified",
    "impatient",
    "changes_mind",
)
CONFLICTS = (("explicit", "coreferential"), ("terse", "verbose"))

_UNIT = (
    r"%|percent|degrees?(?: celsius| fahrenheit)?|°[CF]?|dollars?|euros?|minutes?|mins?|hours?|seconds?|days?|"
    r"weeks?|km|kg|items?|people|servings?"
)
_VAGUE_PARAMS = frozenset({"above", "below", "over", "under", "min", "max", "from", "to", "start", "end", "n", "k"})


def check_styles(styles: tuple[str, ...]) -> None:
    """Raise ValueError for an unknown style or a contradictory pair."""
    unknown = [s for s in styles if s not in STYLES]
    if unknown:
        raise ValueError(f"unknown user style(s) {', '.join(unknown)}; known: {', '.join(STYLES)}")
    for a, b in CONFLICTS:
        if a in styles and b in styles:
            raise ValueError(f"user styles {a} and {b} contradict each other: pick one")


@dataclass(frozen=True)
class ValueSpan:
    """Where a core gold argument's value is said in a wording."""

    param: str
    start: int
    end: int
    said: str
    """The value as written, without its unit ("50")."""
    unit: str
    """What follows it ("%", " degrees"), kept when the value is said again."""

    @property
    def is_number(self) -> bool:
        return bool(re.fullmatch(r"-?\d+(?:\.\d+)?", self.said))

    @property
    def words(self) -> str:
        """What a user calls the parameter ("level", "color"); "value" where its name says nothing."""
        name = self.param.replace("_", " ").strip()
        return "value" if name in _VAGUE_PARAMS or len(name) < 3 else name


def _number_forms(value: float) -> list[str]:
    forms = [str(int(value))] if float(value).is_integer() else []
    if not float(value).is_integer():
        forms.append(repr(float(value)))
    return forms


def value_spans(turn: Goal, text: str) -> list[ValueSpan]:
    """The goal's core argument values that ``text`` states, in text order, one per parameter; two parameters
    with the same value ("5 days for 5 people") take different places, or the second gets none."""
    spans: dict[str, ValueSpan] = {}
    anchor = (turn.user.refers_to or "").casefold()
    for call in turn.gold:
        if call.role != "core":
            continue
        for param, value in call.arguments.items():
            if param in spans:
                continue
            taken = [(s.start, s.end) for s in spans.values()]
            found = _find(value, text, taken)
            if found is not None and found[2].casefold() != anchor:
                start, end, said, unit = found
                spans[param] = ValueSpan(param, start, end, said, unit)
    return sorted(spans.values(), key=lambda s: s.start)


def _find(value: Any, text: str, taken: list[tuple[int, int]]) -> tuple[int, int, str, str] | None:
    def free(m: re.Match[str]) -> bool:
        return all(m.end() <= a or m.start() >= b for a, b in taken)

    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        for form in _number_forms(value):
            pattern = rf"(?<![\w.]){re.escape(form)}(?![\w.]|\.\d)(?P<unit>\s?(?:{_UNIT})(?!\w))?"
            for m in re.finditer(pattern, text):
                if free(m):
                    return m.start(), m.end(), form, m.group("unit") or ""
        return None
    if isinstance(value, str) and len(value) >= 3 and "_" not in value:
        for m in re.finditer(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.IGNORECASE):
            if free(m):
                return m.start(), m.end(), m.group(0), ""
    return None


def withhold(text: str, span: ValueSpan) -> str:
    """The wording with the value left out, as a user who has not said it yet would put it."""
    rest = text[span.end :]
    # A measure word right after the value goes with it ("50% brightness" -> "the level I have in mind").
    rest = re.sub(r"^\s+(?:brightness|volume|degrees|percent)\b", "", rest)
    article = "a" if not span.is_number else "the"
    return f"{text[: span.start]}{article} {span.words} I have in mind{rest}"


def decoy(span: ValueSpan) -> str | None:
    """A different number of the same shape, said first by a user who then changes their mind."""
    if not span.is_number:
        return None
    if "." in span.said:
        decimals = len(span.said.split(".")[1])
        return f"{float(span.said) * 0.9:.{decimals}f}"
    n = int(span.said)
    return str(n - 10 if n > 10 else n + 10)


def replace_value(text: str, span: ValueSpan, said: str) -> str:
    return f"{text[: span.start]}{said}{span.unit}{text[span.end :]}"


_POLITE_HEAD = re.compile(
    r"^(?:hi|hello|hey)?[,!.]?\s*(?:please\s+|could you(?: please)?\s+|can you(?: please)?\s+|would you(?: please)?\s+|"
    r"i'?d like you to\s+|i want you to\s+|i would like you to\s+)",
    re.IGNORECASE,
)
_POLITE_ANY = re.compile(r"(?:,\s*)?\bplease\b,?\s*|\s*\b(?:thanks|thank you)\b[.!]?", re.IGNORECASE)


_QUOTE = re.compile(r"\"[^\"]*\"|“[^”]*”")


def terse(text: str) -> str:
    """Politeness and filler out; the request itself kept, and quoted text untouched (a message to send may say
    "Thanks for yesterday")."""
    out = _POLITE_HEAD.sub("", text.strip())
    pieces, last = [], 0
    for m in _QUOTE.finditer(out):
        pieces += [_POLITE_ANY.sub(" ", out[last : m.start()]), m.group()]
        last = m.end()
    out = "".join([*pieces, _POLITE_ANY.sub(" ", out[last:])])
    out = re.sub(r"\s+([?.!,])", r"\1", re.sub(r"\s{2,}", " ", out)).strip().rstrip(",;").strip()
    return out[:1].upper() + out[1:] if out else text


_CLOSINGS = ("Thank you so much, I really appreciate it.", "There's no rush, take your time.", "Thanks a lot!")
_HURRIES = ("Quick one:", "I'm in a hurry:", "Fast, please:")


def verbose(text: str, chatter: tuple[str, ...], rng: random.Random) -> str:
    opener = rng.choice(chatter) if chatter else "Hello!"
    return f"{opener} {text} {rng.choice(_CLOSINGS)}"


def impatient(text: str, rng: random.Random) -> str:
    return f"{rng.choice(_HURRIES)} {text[:1].lower()}{text[1:]}"


_CLOSERS = re.compile(
    r"\b(?:anything else|something else|further (?:help|assistance)|else I can (?:help|do)|help you with|"
    r"can I help|may I help|other questions)\b",
    re.IGNORECASE,
)


def asks_question(reply: str) -> bool:
    """The agent's reply asks the user something (a clarification, a confirmation), not just "anything else?"."""
    unquoted = _QUOTE.sub('""', reply.strip())  # a message it quotes may ask something; the agent does not
    sentences = re.split(r"(?<=[.!?])\s+", unquoted)
    return any(s.rstrip().endswith("?") and not _CLOSERS.search(s) for s in sentences)
