"""Names as ToolBench gives them, so an imported ToolBench API is the tool an agent trained or evaluated on
ToolBench/StableToolBench knows.

The rule, as read in ToolBench's public inference code (``standardize``, ``change_name`` and
``api_json_to_openai_json`` in its rapidapi environment; StableToolBench keeps it):
- standardize: every character other than ASCII letters, digits, ``_`` and CJK ideographs (U+4E00-U+9FA5)
  becomes ``_``; runs of ``_`` become one; the text is lower-cased; ``_`` stripped from both ends; a text
  starting with a digit gets ``get_`` in front;
- change_name: the names ``from``, ``class``, ``return``, ``false``, ``true``, ``id`` and ``and`` get ``is_``
  in front (applied to API and parameter names);
- a function is ``<change_name(standardize(api name))>_for_<standard tool name>``, cut to its *last* 64
  characters; the standard tool name is the tool file's name (its ``standardized_name``), else the standardized
  ``tool_name``.
One difference, needed by every chat API's tool-name rule (``[A-Za-z0-9_-]``): CJK characters, which ToolBench
keeps, become ``_`` here.
"""

from __future__ import annotations

import re

RESERVED = frozenset({"from", "class", "return", "false", "true", "id", "and"})
MAX_NAME = 64
_NOT_KEPT = re.compile(r"[^\u4e00-\u9fa5a-zA-Z0-9_]")
_NOT_ASCII_NAME = re.compile(r"[^A-Za-z0-9_-]")


def standardize(text: str) -> str:
    text = re.sub(r"_+", "_", _NOT_KEPT.sub("_", text)).lower().strip("_")
    return f"get_{text}" if text[:1].isdigit() else text


def change_name(name: str) -> str:
    return f"is_{name}" if name in RESERVED else name


def function_name(api_name: str, standard_tool_name: str) -> str:
    name = f"{change_name(standardize(api_name))}_for_{standard_tool_name}"[-MAX_NAME:]
    return _NOT_ASCII_NAME.sub("_", name)


def parameter_name(name: str) -> str:
    return change_name(standardize(name))
