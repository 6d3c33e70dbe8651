"""Normalised equality of argument values: what a person would call the same value written differently.

Two strings are the same when, in this order,
- both read as numbers (``"1,200"``, ``"$25.00"``, ``"25"``, ``"25.0"``, ``"40%"``) and the numbers are equal;
- both read as dates (``2026-03-14``, ``14 March 2026``, ``March 14, 2026``, ``14/03/2026`` day first) and name the
  same day, or both read as times (``14:00``, ``2 pm``, ``2:00 PM``) and name the same minute;
- their canonical forms are equal: accents, case, punctuation and repeated spaces gone, ``&`` read as "and", and a
  US state or Canadian province abbreviation after a comma read as its name (``"Miami, FL"`` = ``"Miami,
  Florida"``).
A number and a string compare by the string's number. Nothing here calls a model.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date
from decimal import Decimal, InvalidOperation

_REGIONS = {
    "al": "alabama", "ak": "alaska", "az": "arizona", "ar": "arkansas", "ca": "california", "co": "colorado",
    "ct": "connecticut", "de": "delaware", "fl": "florida", "ga": "georgia", "hi": "hawaii", "id": "idaho",
    "il": "illinois", "in": "indiana", "ia": "iowa", "ks": "kansas", "ky": "kentucky", "la": "louisiana",
    "me": "maine", "md": "maryland", "ma": "massachusetts", "mi": "michigan", "mn": "minnesota",
    "ms": "mississippi", "mo": "missouri", "mt": "montana", "ne": "nebraska", "nv": "nevada",
    "nh": "new hampshire", "nj": "new jersey", "nm": "new mexico", "ny": "new york", "nc": "north carolina",
    "nd": "north dakota", "oh": "ohio", "ok": "oklahoma", "or": "oregon", "pa": "pennsylvania",
    "ri": "rhode island", "sc": "south carolina", "sd": "south dakota", "tn": "tennessee", "tx": "texas",
    "ut": "utah", "vt": "vermont", "va": "virginia", "wa": "washington", "wv": "west virginia",
    "wi": "wisconsin", "wy": "wyoming", "dc": "district of columbia", "on": "ontario", "qc": "quebec",
    "bc": "british columbia", "ab": "alberta",
}  # fmt: skip
MONTHS = {
    name: i + 1
    for i, names in enumerate(
        ["jan january", "feb february", "mar march", "apr april", "may", "jun june", "jul july", "aug august",
         "sep sept september", "oct october", "nov november", "dec december"]
    )
    for name in names.split()
}  # fmt: skip
MONTH_NAMES = "|".join(sorted(MONTHS, key=len, reverse=True))
"""A regex alternation of every month name and abbreviation, longest first."""
_DATE_FORMS = (
    (re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})"), ("y", "m", "d")),
    (re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})"), ("d", "m", "y")),
    (re.compile(rf"(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?({MONTH_NAMES})\.?,? (\d{{4}})"), ("d", "M", "y")),
    (re.compile(rf"({MONTH_NAMES})\.? (\d{{1,2}})(?:st|nd|rd|th)?,? (\d{{4}})"), ("M", "d", "y")),
)
_TIME = re.compile(r"(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)?")
_NUMBER = re.compile(r"[-+]?[$£€]?\s*\d{1,3}(?:,\d{3})+(?:\.\d+)?%?|[-+]?[$£€]?\s*\d+(?:\.\d+)?%?")


def as_number(text: str) -> Decimal | None:
    """The number a whole string reads as, else None."""
    t = text.strip()
    if not _NUMBER.fullmatch(t):
        return None
    try:
        return Decimal(re.sub(r"[,$£€%\s+]", "", t))
    except InvalidOperation:
        return None


def as_date(text: str) -> date | None:
    t = " ".join(text.strip().casefold().split())
    for pattern, order in _DATE_FORMS:
        m = pattern.fullmatch(t)
        if m is None:
            continue
        parts = dict(zip(order, m.groups(), strict=True))
        month = MONTHS[parts["M"]] if "M" in parts else int(parts["m"])
        try:
            return date(int(parts["y"]), month, int(parts["d"]))
        except ValueError:
            return None
    return None


def as_minutes(text: str) -> int | None:
    m = _TIME.fullmatch(text.strip().casefold())
    if m is None or (m[2] is None and m[3] is None):  # a bare number is not a time
        return None
    hour, minute = int(m[1]), int(m[2] or 0)
    if m[3]:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if m[3].startswith("p") else 0)
    return hour * 60 + minute if hour < 24 and minute < 60 else None


def canonical(text: str) -> str:
    plain = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).casefold()
    plain = plain.replace("&", " and ")
    plain = re.sub(r",\s*([a-z]{2})\b(?!\w)", lambda m: " " + _REGIONS.get(m[1], m[1]), plain)
    return " ".join(re.sub(r"[^\w\s.]|(?<!\d)\.|\.(?!\d)", " ", plain).split())


def same_text(a: str, b: str) -> bool:
    """Whether two strings are the same value written differently (see the module's rules)."""
    if a == b:
        return True
    na, nb = as_number(a), as_number(b)
    if na is not None and nb is not None:
        return na == nb
    da, db = as_date(a), as_date(b)
    if da is not None and db is not None:
        return da == db
    ta, tb = as_minutes(a), as_minutes(b)
    if ta is not None and tb is not None:
        return ta == tb
    return canonical(a) == canonical(b)


def same_number_and_text(number: float | int, text: str) -> bool:
    parsed = as_number(text)
    return parsed is not None and parsed == Decimal(str(number))
