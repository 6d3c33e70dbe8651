"""Deterministic normalisation of exact answers (``Goal.answer``) and of what replies state, for the completion judge.

An answer is read as a multiset of rows, each row a multiset of atoms:
- a list is rows; a record (dict) is one row of its values (column names are dropped: the agent's aliases differ
  from the gold query's); a list inside a row is flattened into it; a scalar is one row of one atom. So
  ``[{"Name": "John Doe"}]`` is the single cell "John Doe", ``[{"n": 1}, {"n": 2}]`` the values 1 and 2;
- atoms: numbers become ``Decimal`` (``1 == 1.0 == "1" == "1,000"/1000``: a string that reads as a number is one),
  strings are folded (Unicode NFKD without accents, typographic quotes and dashes made plain, case-folded,
  whitespace collapsed), booleans stay booleans (never numbers, as in ``judges.calls.arg_match``), null stays None;
- rows and atoms within a row compare order-insensitively (lists are multisets: nothing on the task says order
  matters yet).
Numbers match when equal, or when the stated number is the gold rounded to the decimals stated (at least one:
``45.67`` states 45.666…, ``46`` does not), so a rounded average matches and a different count never does.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

Atom = Decimal | str | bool | None
Row = tuple[Atom, ...]

_PLAIN = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-", "\u00a0": " "})
_NUMERIC = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[-+]?\.\d+")
# A number in text: not inside a word or a dotted version ("A320", "v1.2", "dev_12"); thousands separators
# read as one number ("1,234"), a list without spaces as several ("1,2,3"). Units may follow ("5kg"). An exponent
# is part of the number ("1.58e+16": how JSON writes a large REAL, so an agent copying a result writes it so).
NUMBER_IN_TEXT = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e[-+]?\d+)?(?![\d_]|\.\d)")
_UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty"
)
_TENS = "thirty forty fifty sixty seventy eighty ninety"
NUMBER_WORDS = {w: Decimal(i) for i, w in enumerate(_UNITS.split())} | {
    w: Decimal(10 * i) for i, w in enumerate(_TENS.split(), start=3)
}
_WORD_RE = re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r")\b")
EPSILON = Decimal("1e-12")  # float noise (0.1 + 0.2), relative: far below any stated rounding


def fold(text: str) -> str:
    """Case-, accent- and whitespace-insensitive form of a string."""
    if text.isascii():  # the common case, 3x faster: nothing to decompose
        return " ".join(text.casefold().split())
    decomposed = unicodedata.normalize("NFKD", text.translate(_PLAIN))
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(plain.casefold().split())


def to_number(value: Any) -> Decimal | None:
    """The number a JSON value or a string reads as (``"1,234.5"`` too), else None. Booleans are not numbers."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value)) if value == value and abs(value) != float("inf") else None
    if not isinstance(value, str) or not (text := value.strip()) or text[0] not in "+-.0123456789":
        return None  # fast: most strings are names
    if _NUMERIC.fullmatch(text):
        try:
            return Decimal(text.replace(",", ""))
        except InvalidOperation:  # pragma: no cover - the pattern only admits valid numbers
            return None
    return None


def atom(value: Any) -> Atom:
    if value is None or isinstance(value, bool):
        return value
    number = to_number(value)
    if number is not None:
        return number
    return fold(value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False))


def _flat(value: Any) -> Iterator[Atom]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _flat(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _flat(v)
    else:
        yield atom(value)


def rows(answer: Any) -> list[Row]:
    """The answer as rows of atoms (see the module doc). None (no value) is no rows."""
    if answer is None:
        return []
    if isinstance(answer, list | tuple):
        return [tuple(_flat(r)) for r in answer]
    return [tuple(_flat(answer))]


def decimals(number: Decimal) -> int:
    exponent = number.as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def number_matches(stated: Decimal, gold: Decimal, places: int | None = None) -> bool:
    """Equal, or ``stated`` is ``gold`` rounded to the (≥ 1) decimals it states (``places``: as written)."""
    places = decimals(stated) if places is None else places
    diff = abs(stated - gold)
    if diff <= EPSILON * max(Decimal(1), abs(gold)):
        return True
    return places >= 1 and diff <= Decimal(5) * Decimal(10) ** -(places + 1)


def atoms_match(stated: Atom, gold: Atom) -> bool:
    if isinstance(stated, Decimal) and isinstance(gold, Decimal):
        return number_matches(stated, gold)
    if isinstance(stated, bool) or isinstance(gold, bool):
        return type(stated) is type(gold) and stated == gold
    return stated == gold


def _key(a: Atom) -> tuple[str, str]:
    if isinstance(a, Decimal):
        return ("n", str(a.normalize()) if a != 0 else "0")
    return (type(a).__name__, str(a))


def _multiset_match(stated: Sequence[Any], gold: Sequence[Any], key: Any, same: Any) -> bool:
    """Multisets equal: exact keys paired first, then the rest greedily under the tolerant ``same``."""
    if len(stated) != len(gold):
        return False
    pool: dict[Any, list[Any]] = {}
    for g in gold:
        pool.setdefault(key(g), []).append(g)
    rest = []
    for x in stated:
        bucket = pool.get(key(x))
        if bucket:
            bucket.pop()
        else:
            rest.append(x)
    rest_gold = [g for bucket in pool.values() for g in bucket]
    for x in rest:
        partner = next((i for i, g in enumerate(rest_gold) if same(x, g)), None)
        if partner is None:
            return False
        rest_gold.pop(partner)
    return True


def _row_key(row: Row) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(_key(a) for a in row))


def row_matches(stated: Row, gold: Row) -> bool:
    return _multiset_match(stated, gold, _key, atoms_match)


def rows_match(stated: list[Row], gold: list[Row]) -> bool:
    """Same rows, each with the same atoms, in any order (numbers within rounding)."""
    return _multiset_match(stated, gold, _row_key, row_matches)


def structured_matches(value: Any, answer: Any) -> bool:
    """A parsed JSON reply against the answer: equal as rows; for a one-row answer a flat list is that row."""
    gold = rows(answer)
    if rows_match(rows(value), gold):
        return True
    flat = isinstance(value, list) and all(not isinstance(v, list | dict) for v in value)
    return len(gold) == 1 and flat and row_matches(tuple(_flat(value)), gold[0])


def numbers_in(text: str, with_one: bool = True) -> list[tuple[Decimal, int]]:
    """The numbers a folded text states, in order: (value, decimals as written); number words are integers.

    ``with_one=False`` leaves out the word "one", which is as often a pronoun ("the one with...") as a count."""
    found = [(m.start(), Decimal(m.group().replace(",", ""))) for m in NUMBER_IN_TEXT.finditer(text)]
    found += [(m.start(), NUMBER_WORDS[m.group()]) for m in _WORD_RE.finditer(text) if with_one or m.group() != "one"]
    return [(n, decimals(n)) for _, n in sorted(found, key=lambda f: f[0])]


def render_answer(answer: Any) -> str:
    """A rendering of the answer that the completion judge accepts (a gold reply for ``Goal.gold_answer``).

    One row: its values joined by ", "; several: one row per line; no rows: "No results.". Floats are rounded to
    two decimals (an average reads 45.67); ints and strings as they are."""
    table = [[_cell(v) for v in _raw_flat(r)] for r in (answer if isinstance(answer, list) else [answer])]
    if not table:
        return "No results."
    return "\n".join(", ".join(cells) for cells in table)


def _raw_flat(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _raw_flat(v)
    elif isinstance(value, list):
        for v in value:
            yield from _raw_flat(v)
    else:
        yield value


def _cell(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}" if not value.is_integer() else str(int(value))
    return str(value)
