"""Normalised argument matching, hand-labelled: values written differently that exact match fails and normalised
matching passes, values that differ and must fail in every mode, and per-parameter modes."""

from __future__ import annotations

import pytest

from judges.calls.arg_match import ArgMatcher
from judges.common.value_normalise import as_date, as_minutes, as_number, same_text

SAME = [
    ("Miami, FL", "Miami, Florida"),
    ("Austin, TX", "austin, texas"),
    ("25", "25.0"),
    ("$1,200", "1200"),
    ("40%", "40"),
    ("2026-03-14", "March 14, 2026"),
    ("2026-03-14", "14 March 2026"),
    ("14/03/2026", "2026-03-14"),
    ("14:00", "2 pm"),
    ("9:30 AM", "09:30"),
    ("Café Nero", "cafe nero"),
    ("Tom & Jerry", "Tom and Jerry"),
    ("  living   room ", "Living room."),
]
DIFFERENT = [
    ("Miami, FL", "Miami, GA"),
    ("21 degrees", "22 degrees"),
    ("2026-03-14", "2026-03-15"),
    ("14:00", "2 am"),
    ("Paris", "London"),
    ("v2.1", "v2.2"),
    ("12", "120"),
]


@pytest.mark.parametrize(("gold", "said"), SAME)
def test_the_same_value_written_differently(gold: str, said: str) -> None:
    assert same_text(gold, said) and same_text(said, gold)
    args, expected = {"where": said}, {"where": gold}
    assert ArgMatcher("exact").match(args, expected) == (False, ["args:value:where"])
    assert ArgMatcher("normalised").match(args, expected) == (True, [])


@pytest.mark.parametrize(("gold", "said"), DIFFERENT)
def test_different_values_fail_in_every_offline_mode(gold: str, said: str) -> None:
    assert not same_text(gold, said)
    assert not ArgMatcher("normalised").match({"x": said}, {"x": gold})[0]


def test_parsers() -> None:
    assert as_number("£3,499.50") == as_number("3499.5") and as_number("3 tins") is None
    assert as_date("Mar 2nd, 2026") == as_date("2026-03-02") and as_date("2026-02-30") is None
    assert as_minutes("12 am") == 0 and as_minutes("12") is None


def test_a_number_matches_a_string_that_reads_as_it_only_outside_exact() -> None:
    assert ArgMatcher("normalised").match({"level": "50"}, {"level": 50})[0]
    assert not ArgMatcher("exact").match({"level": "50"}, {"level": 50})[0]
    assert not ArgMatcher("normalised").match({"level": "fifty-one"}, {"level": 50})[0]


def test_schema_constrained_strings_stay_exact() -> None:
    schema = {"properties": {"color": {"type": "string", "enum": ["blue", "red"]}}}
    assert not ArgMatcher("normalised").match({"color": "Blue"}, {"color": "blue"}, schema)[0]


def test_per_parameter_modes_most_specific_first() -> None:
    matcher = ArgMatcher("normalised", overrides=(("send_message.text", "exact"), ("*.city", "exact")))
    assert matcher.mode_for("send_message", "text") == "exact" and matcher.mode_for("book", "city") == "exact"
    assert matcher.mode_for("book", "date") == "normalised"
    assert not matcher.match({"text": "hi there"}, {"text": "Hi there."}, tool="send_message")[0]
    assert matcher.match({"text": "hi there"}, {"text": "Hi there."}, tool="note")[0]
    loose = ArgMatcher("exact", overrides=(("book.*", "normalised"),))
    assert loose.match({"date": "March 14, 2026"}, {"date": "2026-03-14"}, tool="book")[0]
    with pytest.raises(ValueError, match="unknown argument match mode"):
        ArgMatcher("exact", overrides=(("a.b", "fuzzy"),))  # type: ignore[arg-type]
