"""BFCL's ground-truth strings and function docs as squall calls and specs (no bfcl-eval needed)."""

from __future__ import annotations

import inspect

import pytest

from worlds.bfcl.gold_parse import GoldParseError, parse_call
from worlds.bfcl.gorilla_types import PYTHON_HINT, openai_name, parameters_schema, tool_spec


def _sort(file_name: str, reverse: bool = False) -> None: ...


def test_keyword_arguments_parse_as_literals() -> None:
    call = parse_call("mv(source='final_report.pdf', destination='temp')")
    assert (call.name, dict(call.arguments)) == ("mv", {"source": "final_report.pdf", "destination": "temp"})


def test_positional_arguments_take_their_names_from_the_signature() -> None:
    signature = inspect.signature(_sort)
    call = parse_call("sort('final_report.pdf')", lambda name: signature if name == "sort" else None)
    assert dict(call.arguments) == {"file_name": "final_report.pdf"}
    mixed = parse_call("sort('a.txt', reverse=True)", lambda _name: signature)
    assert dict(mixed.arguments) == {"file_name": "a.txt", "reverse": True}


def test_positional_arguments_without_a_signature_or_that_do_not_fit_are_errors() -> None:
    with pytest.raises(GoldParseError, match="no signature"):
        parse_call("sort('x')")
    with pytest.raises(GoldParseError, match="do not fit"):
        parse_call("sort('a', True, 3)", lambda _name: inspect.signature(_sort))


def test_values_are_literals_only_never_evaluated() -> None:
    for text in ("f(x=__import__('os').getcwd())", "f(x=y)", "f(**kw)", "x + 1", "f(x=1"):
        with pytest.raises(GoldParseError):
            parse_call(text)


def test_nested_values_negative_numbers_and_tuples_in_json_form() -> None:
    call = parse_call("f(a=[1, (2, 3)], b={'k': (4,)}, c=-2.5, d=None)")
    assert dict(call.arguments) == {"a": [1, [2, 3]], "b": {"k": [4]}, "c": -2.5, "d": None}


def test_dotted_names_are_rewritten_as_bfcl_does_for_openai_style_models() -> None:
    call = parse_call("math.factorial(number=5)")
    assert (call.source_name, call.name) == ("math.factorial", "math_factorial")
    assert openai_name("a.b.c") == "a_b_c"


def test_gorilla_types_map_to_json_schema_recursively() -> None:
    schema = parameters_schema(
        {
            "type": "dict",
            "properties": {
                "ratio": {"type": "float", "description": "r"},
                "pair": {"type": "tuple", "items": {"type": "integer"}},
                "blob": {"type": "any"},
                "opts": {"type": "dict", "properties": {"deep": {"type": "array", "items": {"type": "float"}}}},
                "flag": {"type": "boolean", "default": False, "required": True},
            },
            "required": ["ratio"],
        }
    )
    props = schema["properties"]
    assert schema["type"] == "object" and schema["required"] == ["ratio"]
    assert props["ratio"] == {"type": "number", "description": "r"}
    assert props["pair"] == {"type": "array", "items": {"type": "integer"}}
    assert props["blob"] == {}
    assert props["opts"]["type"] == "object" and props["opts"]["properties"]["deep"]["items"] == {"type": "number"}
    assert props["flag"] == {"type": "boolean", "default": False}  # a per-property ``required`` flag is not JSON Schema


def test_tool_spec_carries_the_rewritten_name_and_bfcl_python_hint() -> None:
    spec = tool_spec({"name": "math.gcd", "description": "GCD.", "parameters": {"type": "dict", "properties": {}}})
    assert spec.name == "math_gcd" and spec.description == "GCD." + PYTHON_HINT
    with pytest.raises(ValueError, match=r"math\.gcd"):
        tool_spec({"name": "math.gcd", "description": "", "parameters": {"type": "HashMap"}})
