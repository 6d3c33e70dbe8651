"""BFCL's side of the bfcl-results suite: a result file's raw outputs decoded by bfcl-eval's own decoders and judged by
its own checkers, in the order of its evaluation runner (``eval_runner._evaluate_single_ast_entry``,
``_evaluate_single_relevance_entry``, ``_evaluate_single_multi_turn_entry``); and the raw outputs the suite writes.

bfcl-eval's decoders live in a module that imports its Java/JavaScript parsers (tree-sitter) and tenacity, neither
installed here nor used by the Python decoders: stand-ins are put in ``sys.modules`` for that one import and taken
out again. Function-calling outputs are decoded as BFCL's OpenAI-style handler does (its ``decode_ast`` loop:
``json.loads`` of each call's arguments, the first key of each dict; ``decode_execute``: ``convert_to_function_call``).
Test code only: squall never imports BFCL's checkers.
"""

from __future__ import annotations

import copy
import importlib
import json
import re
import sys
import types
from functools import cache
from typing import Any

from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils as bfcl_executor
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

from tests.judges.bfcl_ast_cases import Entry, bfcl_checker
from tests.judges.bfcl_multi_turn_cases import entries as multi_turn_entries

_STAND_INS = {
    "tenacity": ("retry", "retry_if_exception_message", "retry_if_exception_type", "wait_random_exponential"),
    "bfcl_eval.model_handler.parser.java_parser": ("parse_java_function_call",),
    "bfcl_eval.model_handler.parser.js_parser": ("parse_javascript_function_call",),
}


@cache
def decoders() -> Any:
    """bfcl-eval's ``model_handler.utils`` (its prompting decoders and ``convert_to_function_call``)."""
    added = [name for name in _STAND_INS if name not in sys.modules]
    for name in added:
        module = types.ModuleType(name)
        for attribute in _STAND_INS[name]:
            setattr(module, attribute, None)
        sys.modules[name] = module
    try:
        return importlib.import_module("bfcl_eval.model_handler.utils")
    finally:
        for name in added:
            sys.modules.pop(name, None)


def decode_ast(raw: Any) -> Any:
    """A single-turn output as BFCL's OpenAI-style handler decodes it (raises where BFCL's decoding fails)."""
    if isinstance(raw, str):
        python = importlib.import_module("bfcl_eval.constants.enums").ReturnFormat.PYTHON
        return decoders().default_decode_ast_prompting(raw, python, False)
    decoded = []
    for invoked in raw:
        name = next(iter(invoked))
        decoded.append({name: json.loads(invoked[name])})
    return decoded


def decode_execute(raw: Any) -> list[str]:
    if isinstance(raw, str):
        return list(decoders().default_decode_execute_prompting(raw, False))
    return list(decoders().convert_to_function_call(raw))


def single_turn_verdict(entry: Entry, raw: Any) -> bool | None:
    """BFCL's verdict on a single-turn raw output (None where its checker raises)."""
    ast_checker, python, is_empty = bfcl_checker()
    utils = importlib.import_module("bfcl_eval.utils")
    try:
        decoded = decode_ast(raw)
    except Exception:
        decoded = None
    if entry.category in ("irrelevance", "live_irrelevance", "live_relevance"):
        called = decoded is not None and not is_empty(decoded)
        return called == (entry.category == "live_relevance")
    if decoded is None or not utils.is_function_calling_format_output(decoded):
        return False
    decoded = [{name.replace(".", "_"): args} for call in decoded for name, args in call.items()]
    try:
        result = ast_checker(entry.functions, decoded, copy.deepcopy(entry.answer), python, entry.category, "squall")
    except Exception:
        return None
    return bool(result["valid"])


_case = 0


def multi_turn_verdict(entry_id: str, raw: Any) -> bool:
    """BFCL's verdict on a multi-turn raw output: its runner's checks, its decoding per step, its checker."""
    global _case
    _case += 1
    entry, truth = multi_turn_entries()[entry_id]
    if not isinstance(raw, list) or len(raw) != len(truth):
        return False
    turns: list[list[list[str]]] = []
    for steps in raw:
        decoded_steps = []
        for step in steps:
            try:
                decoded = decode_execute(step)
            except Exception:
                continue
            if decoded and not (len(decoded) == 1 and not decoded[0]):
                decoded_steps.append(decoded)
        turns.append(decoded_steps)
    model = f"bfclresults_{_case}"  # the executor keeps instances by model name and entry: one name per case
    try:
        verdict = multi_turn_checker(turns, truth, copy.deepcopy(entry), entry_id.rsplit("_", 1)[0], model)
    finally:
        prefix = re.sub(r"[-./:]", "_", model) + "_"
        for name in [n for n in vars(bfcl_executor) if n.startswith(prefix)]:
            del vars(bfcl_executor)[name]
    return bool(verdict["valid"])
