"""BFCL's possible-answer rules for one function call, written for squall (BFCL's checker is not imported here).

A gold call is ``{parameter: [accepted values]}``; ``""`` among the values means the parameter may be left out. A
call matches when it names the gold function, gives every required parameter, gives no parameter the schema or the
gold lacks, every value has the schema's type (or the type of the accepted values: BFCL's "variable" case) and is
among the accepted values, and every parameter it leaves out may be left out. Strings (also inside lists and dicts)
are compared after BFCL's standardisation (``standardize``). The rules follow BFCL's checker where it is lenient or
odd too (its type check looks one level into lists only; ``""`` accepts an empty list; an int is taken for a float at
the top level but not inside a list), so squall's verdicts equal BFCL's: the agreement suite checks them call by call.

Each function returns None when the value (or call) matches, else a reason in BFCL's terms (``type_error:simple``,
``value_error:string``...). Python's own ``==`` and ``in`` decide equality, as in BFCL (``1 == 1.0 == True``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sim.core.frozen import thaw

PYTHON_TYPES: dict[str | None, type] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "array": list,
    "object": dict,
    None: str,  # Gorilla's ``any`` has no JSON Schema type; BFCL checks it as a string
}
"""JSON Schema type (as squall's BFCL worlds write Gorilla's types) -> the Python type BFCL's checker expects."""
_DROPPED = str.maketrans("", "", " ,./-_*^")


def standardize(text: str) -> str:
    """BFCL's string standardisation: spaces and ``,./-_*^`` removed, lower case, single quotes made double
    (``"April 1, 2024"`` and ``"april 1 2024"`` compare equal)."""
    return text.translate(_DROPPED).lower().replace("'", '"')


def _std(value: Any) -> Any:
    return standardize(value) if type(value) is str else value


def _answer_type(accepted: list[Any]) -> type | None:
    """The type of the first accepted value that is not the "may be omitted" marker; None when there is none."""
    return next((type(a) for a in accepted if a != ""), None)


def _python_type(schema: Mapping[str, Any]) -> type:
    kind = schema.get("type")
    return PYTHON_TYPES.get(kind if isinstance(kind, str) else None, str)


def type_error(value: Any, accepted: list[Any], expected: type, inner: type | None) -> tuple[str | None, bool]:
    """(the type error or None, whether the value is a "variable": typed like the accepted values, not the schema).

    A list's items are checked against the item type only against an accepted value that is itself a list (one level
    deep); any accepted value that is not a list (``""`` included) lets every list through."""
    answer_type = _answer_type(accepted)
    variable = answer_type is not None and answer_type is not expected
    if type(value) is expected:
        items: list[Any] = value if isinstance(value, list) else []
        if inner is None or any(
            type(option) is not list or all(_item_typed(item, option, inner) for item in items) for option in accepted
        ):
            return None, variable
        return ("type_error:nested" if type(value) is answer_type else "type_error:simple"), variable
    if answer_type is not None and type(value) is answer_type:
        return None, True
    return "type_error:simple", variable


def _item_typed(item: Any, option: list[Any], inner: type) -> bool:
    answer_type = _answer_type(option)
    return type(item) is inner or (answer_type is not None and type(item) is answer_type)


def string_error(value: str, accepted: list[Any]) -> str | None:
    return None if standardize(value) in [standardize(a) for a in accepted if type(a) is str] else "value_error:string"


def list_error(value: list[Any], accepted: list[Any]) -> str | None:
    """A list equals an accepted list item by item, strings standardised. An accepted ``""`` is the empty list (and
    any other accepted string, its characters), as BFCL reads them."""
    options = [[_std(x) for x in option] for option in accepted if isinstance(option, list | str)]
    return None if [_std(x) for x in value] in options else "value_error:list"


def _dict_against(value: Mapping[str, Any], option: Any) -> str | None:
    """One dict against one accepted dict (``{key: [accepted values]}``); the last reason found wins, as in BFCL."""
    if not isinstance(value, Mapping) or not isinstance(option, Mapping):
        return "value_error:dict_value"
    reason = None
    for key, item in value.items():
        if key not in option:
            reason = "value_error:dict_key"
            break
        if _std(item) not in [_std(a) for a in option[key]]:
            reason = "value_error:dict_value"
            break
    if any(key not in value and "" not in values for key, values in option.items()):
        reason = "value_error:dict_key"
    return reason


def dict_error(value: Mapping[str, Any], accepted: list[Any]) -> str | None:
    """A dict matches one accepted dict (the ``""`` marker skipped); a dict's values are compared flat: strings
    standardised, anything nested by equality."""
    reason = "value_error:dict"
    for option in accepted:
        if option == "":
            continue
        reason = _dict_against(value, option) or ""
        if not reason:
            return None
    return reason


def list_of_dicts_error(value: list[Any], accepted: list[Any]) -> str | None:
    """A list of dicts matches an accepted list of the same length dict by dict, in order (``""``: the empty list)."""
    reason = "value_error:list_dict"
    for option in accepted:
        if not isinstance(option, list | str) or len(option) != len(value):
            reason = "value_error:list_dict_count"
            continue
        reason = next((r for item, want in zip(value, option, strict=True) if (r := _dict_error_one(item, want))), "")
        if not reason:
            return None
    return reason


def _dict_error_one(item: Any, want: Any) -> str | None:
    if want == "":  # BFCL skips the omission marker and, with nothing left, calls it unclear
        return "value_error:dict"
    return _dict_against(item, want)


def value_error(value: Any, accepted: list[Any], schema: Mapping[str, Any]) -> str | None:
    """The first error of one argument value against its accepted values and its schema."""
    expected = _python_type(schema)
    items = schema.get("items")
    inner = _python_type(items) if expected is list and isinstance(items, Mapping) else None
    if expected is list and inner is None:
        inner = str  # an array without an item type: BFCL reads a missing type as ``any``, a string
    if expected is float and type(value) is int:
        value = float(value)  # Python's int -> float conversion, which BFCL allows at the top level
    reason, variable = type_error(value, accepted, expected, inner)
    if reason:
        return reason
    if not variable:  # a "variable" (typed like the accepted values, not the schema) is compared as it is
        if expected is dict:
            return dict_error(value, accepted)
        if expected is list:
            return list_of_dicts_error(value, accepted) if inner is dict else list_error(value, accepted)
        if expected is str:
            return string_error(value, accepted)
    return None if value in accepted else "value_error:others"


def call_error(
    name: str,
    arguments: Mapping[str, Any],
    gold_name: str,
    accepted: Mapping[str, list[Any]],
    schema: Mapping[str, Any],
) -> str | None:
    """The first error of one call against one gold call (``accepted``: parameter -> accepted values) and the gold
    function's parameter schema, in BFCL's order: name, required parameters, each given parameter, omissions."""
    if name != gold_name:
        return "wrong_func_name"
    properties: Mapping[str, Any] = schema.get("properties") or {}
    if any(p not in arguments for p in schema.get("required") or []):
        return "missing_required"
    for param, value in arguments.items():
        if param not in properties or param not in accepted:
            return "unexpected_param"
        # Plain lists and dicts (a frozen value's type is a subclass: BFCL's checks compare exact types).
        if reason := value_error(thaw(value), thaw(accepted[param]), properties[param]):
            return reason
    if any(p not in arguments and "" not in values for p, values in accepted.items()):
        return "missing_optional"
    return None
