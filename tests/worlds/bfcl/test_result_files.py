"""Reading BFCL result and score files, and decoding a model's raw output as bfcl-eval's own decoders do."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("bfcl_eval")

from tests.sim.run.bfcl_results_cases import decode_ast, decode_execute
from worlds.bfcl.gold_parse import parse_call
from worlds.bfcl.gorilla_types import openai_name
from worlds.bfcl.result_decode import decode_multi, decode_single
from worlds.bfcl.result_files import (
    BfclResultError,
    find_result_files,
    find_score_files,
    read_result_file,
    read_score_file,
)


def _file(folder: Path, name: str, lines: list[str], end: str = "\n") -> Path:
    path = folder / name
    path.write_text("\n".join(lines) + end, encoding="utf-8")
    return path


def _line(entry_id: str, result: Any = "[]") -> str:
    return json.dumps({"id": entry_id, "result": result})


def test_a_folder_of_v3_and_v4_files_is_read_with_v3_names_as_v4s(tmp_path: Path) -> None:
    (tmp_path / "non_live").mkdir()
    _file(tmp_path / "non_live", "BFCL_v3_simple_result.json", [_line("simple_0"), _line("simple_7")])
    _file(tmp_path, "BFCL_v4_multi_turn_base_result.json", [_line("multi_turn_base_3", [])])
    _file(tmp_path, "notes.json", ["{}"])
    files = [read_result_file(p) for p in find_result_files(tmp_path)]
    assert [(f.category, [e.id for e in f.entries]) for f in files] == [
        ("multi_turn_base", ["multi_turn_base_3"]),
        ("simple_python", ["simple_python_0", "simple_python_7"]),
    ]


def test_a_last_line_cut_short_is_left_out_with_a_note(tmp_path: Path) -> None:
    path = _file(tmp_path, "BFCL_v4_simple_python_result.json", [_line("simple_python_0"), '{"id": "simple_py'], "")
    read = read_result_file(path)
    assert [e.id for e in read.entries] == ["simple_python_0"]
    assert read.notes == (f"{path}:2: last line cut short (Unterminated string starting at); read without it",)


@pytest.mark.parametrize(
    ("name", "lines", "message"),
    [
        ("BFCL_v4_simple_python_result.json", [_line("simple_python_0"), "{oops", _line("simple_python_2")],
         ":2: not JSON: Expecting property name enclosed in double quotes"),
        ("BFCL_v4_simple_python_result.json", ["[1]"], ":1: not a JSON object"),
        ("BFCL_v4_simple_python_result.json", ['{"id": "simple_python_0"}'], ":1: field 'result' is missing"),
        ("BFCL_v4_simple_python_result.json", [_line("multiple_0")],
         ":1: field 'id': 'multiple_0' is not an entry of category simple_python"),
        ("BFCL_v4_simple_python_result.json", [_line("simple_python_1"), _line("simple_python_1")],
         ":2: field 'id': simple_python_1 appears twice"),
        ("BFCL_v4_web_search_result.json", [_line("web_search_0")],
         ": category 'web_search' is not scored by squall: needs live web search"),
        ("BFCL_v4_cooking_result.json", [_line("cooking_0")],
         ": category 'cooking' is not scored by squall: an unknown BFCL category"),
        ("BFCL_v4_simple_python_result.json", [""], ": no entries"),
    ],
)  # fmt: skip
def test_bad_input_names_file_line_and_field(tmp_path: Path, name: str, lines: list[str], message: str) -> None:
    with pytest.raises(BfclResultError) as caught:
        read_result_file(_file(tmp_path, name, lines))
    assert str(caught.value).startswith(f"{tmp_path / name}{message}"), caught.value


def test_hostile_files_are_one_line_errors(tmp_path: Path) -> None:
    deep = _file(tmp_path, "BFCL_v4_simple_python_result.json", ["[" * 100_000 + "]" * 100_000])
    with pytest.raises(BfclResultError, match=r"_result\.json:1: not JSON: nested too deeply"):
        read_result_file(deep)
    binary = tmp_path / "BFCL_v4_parallel_result.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(BfclResultError, match=r"parallel_result\.json: .*UTF-8"):
        read_result_file(binary)


def test_a_folder_without_result_files_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BfclResultError, match="no BFCL result files"):
        find_result_files(tmp_path)
    with pytest.raises(BfclResultError, match="not a BFCL result file"):
        find_result_files(_file(tmp_path, "results.json", ["{}"]))


def test_score_files_give_bfcls_failures_by_id(tmp_path: Path) -> None:
    header = json.dumps({"accuracy": 0.5, "correct_count": 2, "total_count": 4})
    single = json.dumps({"id": "simple_python_1", "valid": False, "error_type": "value_error:string"})
    multi = json.dumps({"id": "multi_turn_base_2", "valid": False, "error": {"error_type": "multi_turn:x"}})
    _file(tmp_path, "BFCL_v3_simple_score.json", [header, single])
    _file(tmp_path, "BFCL_v4_simple_python_score.json", [header, single])
    _file(tmp_path, "BFCL_v4_multi_turn_base_score.json", [header, multi])
    found = find_score_files(tmp_path)
    assert found["simple_python"].name == "BFCL_v4_simple_python_score.json"  # the newer version wins
    assert dict(read_score_file(found["simple_python"]).failures) == {"simple_python_1": "value_error:string"}
    assert dict(read_score_file(found["multi_turn_base"]).failures) == {"multi_turn_base_2": "multi_turn:x"}
    with pytest.raises(BfclResultError, match=r"score\.json:1: field 'total_count' is missing"):
        read_score_file(_file(tmp_path, "BFCL_v4_parallel_score.json", [single]))


def _listed(value: Any) -> Any:
    """A decoded value as JSON holds it (BFCL keeps a tuple literal a tuple)."""
    if isinstance(value, list | tuple):
        return [_listed(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _listed(v) for k, v in value.items()}
    return value


PROMPTING = [
    "[f(a=1, b='x')]",
    "f(a=1)",
    "```\n[f(a=1), g(b=2.5)]\n```",
    "'[f(a=1)]'",
    "[f(a=-1.5), g(b=[1, 2], c={'k': 'v', 'n': None})]",
    "[mod.sub.f(a=True, b=(1, 2))]",
    "[f(a=x, b=g(), c=h(d=1), e=y[1], f=...)]",
    "[f(1, a=2)]",
    "[f(a=2*3+1, b=7//2, c=1.5-0.5)]",
    "[f(a=-x)]",
    "[f(a=1), 2]",
    "[]",
    "hello world",
    "[f(a=1",
    "[f(**d)]",
    "[f(a=lambda: 1)]",
]
FUNCTION_CALLING: list[Any] = [
    [{"f": '{"a": 1, "b": [1, 2]}'}],
    [{"f": '{"a": 1}', "g": "{}"}, {"h.i": '{"s": "t"}'}],
    [{"f": "not json"}],
    [{"f": "[1]"}],
    [{}],
    [],
    "",
]


@pytest.mark.parametrize("raw", PROMPTING + FUNCTION_CALLING)
def test_single_turn_outputs_decode_as_bfcl_decodes_them(raw: Any) -> None:
    """Where BFCL's decoding (and its format check) fails, squall's does; elsewhere both give the same calls."""
    try:
        decoded = decode_ast(raw)
        formatted = all(isinstance(next(iter(c.values())), dict) for c in decoded)
    except Exception:
        decoded, formatted = None, False
    squall = decode_single(raw)
    if decoded is None or not formatted:
        assert squall.error is not None and squall.calls == ()
        return
    assert squall.error is None
    expected = [(openai_name(name), _listed(args)) for call in decoded for name, args in call.items()]
    assert [(name, args) for name, args in squall.calls] == expected


EXECUTABLE = [p for p in PROMPTING if not any(word in p for word in ("x", "lambda", "**"))]
"""Texts whose execution strings are literal calls (BFCL's executor evaluates names and ``**`` as Python)."""


@pytest.mark.parametrize("raw", EXECUTABLE + FUNCTION_CALLING[:4])
def test_multi_turn_steps_decode_as_bfcls_execution_strings(raw: Any) -> None:
    try:
        strings = decode_execute(raw)
    except Exception:
        strings = None
    decoded = decode_multi([[raw]], 1)
    assert decoded.error is None
    (steps,) = decoded.turns
    if strings is None:
        assert len(steps) == 1 and steps[0].error is not None
        return
    if not strings:
        assert steps == ()
        return
    parsed = [parse_call(s) for s in strings]
    assert [(name, args) for step in steps for name, args in step.calls] == [(p.name, p.arguments) for p in parsed]


def test_a_multi_turn_result_must_hold_a_list_per_turn() -> None:
    assert decode_multi("[f()]", 2).error == "inference_error: not a list of turns, each a list of model responses"
    assert decode_multi([[], [], []], 2).error == "force_terminated: 3 turns in the result, 2 in the entry"
    assert decode_multi([[[]], ["[]", [{"f": "{}"}]]], 2).turns == ((), (decode_single([{"f": "{}"}]),))
