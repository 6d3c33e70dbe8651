"""The world's tools as Python functions: the signatures and docstrings the model reads, and the stubs' wiring.

Made from the same ``ToolSpec`` tuple a native agent is sent (stressor-changed docs included), so a code agent
reads what a tool-calling agent reads. A name that is not a Python identifier (``math.factorial``, ``get-user``)
is shown under an identifier made of it and called by its own name.
"""

from __future__ import annotations

import builtins
import json
import keyword
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sim.core import ToolSpec

_SIMPLE = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}


@dataclass(frozen=True)
class PythonTool:
    """One tool as the program calls it."""

    name: str
    """The tool's own name: what the runtime is called with."""
    py_name: str
    """The identifier the program calls."""
    params: tuple[str, ...]
    """Parameter names in signature order (required first): positional arguments map onto them."""
    text: str
    """``def ...:`` with its docstring, as the prompt shows it."""

    def wire(self) -> dict[str, Any]:
        """What the child needs to build the stub."""
        return {"name": self.name, "py": self.py_name, "params": list(self.params)}


def python_tools(specs: Sequence[ToolSpec]) -> tuple[PythonTool, ...]:
    # a tool named ``open``, ``len`` or ``json`` would shadow what programs use: it gets another identifier
    taken: set[str] = {"ToolError", *dir(builtins), *sys.stdlib_module_names}
    return tuple(_tool(spec, taken) for spec in specs)


def _identifier(name: str, taken: set[str]) -> str:
    base = re.sub(r"\W", "_", name) or "tool"
    if base[0].isdigit() or keyword.iskeyword(base):
        base = f"_{base}"
    made, n = base, 2
    while made in taken:
        made, n = f"{base}_{n}", n + 1
    taken.add(made)
    return made


def _tool(spec: ToolSpec, taken: set[str]) -> PythonTool:
    schema = spec.parameters
    props: dict[str, Any] = dict(schema.get("properties") or {})
    required = [p for p in schema.get("required") or [] if p in props]
    ordered = required + [p for p in props if p not in required]
    py_name = _identifier(spec.name, taken)
    shown: list[str] = []
    odd: list[str] = []  # parameter names a keyword argument cannot spell: passed as **{"name": value}
    for name in ordered:
        if not name.isidentifier() or keyword.iskeyword(name):
            odd.append(name)
            continue
        hint = annotation(props[name] if isinstance(props[name], dict) else {})
        if name not in required:
            hint = hint if "None" in hint.split(" | ") else f"{hint} | None"
        shown.append(f"{name}: {hint}" if name in required else f"{name}: {hint} = None")
    if odd:
        shown.append("**more")
    lines = [f"def {py_name}({', '.join(shown)}) -> Any:", '    """']
    lines += [f"    {line}".rstrip() for line in spec.description.strip().splitlines() or [""]]
    if py_name != spec.name:
        lines.append(f"    (The tool {spec.name!r}.)")
    args: list[str] = []
    for name in ordered:
        prop = props[name] if isinstance(props[name], dict) else {}
        note = " ".join(str(prop.get("description") or "").split())
        if "enum" in prop:
            note += f" (one of {json.dumps(list(prop['enum']), ensure_ascii=False)})"
        if name in odd:
            note += " (pass as **{" + json.dumps(name) + ": value})"
        if note.strip():
            args.append(f"        {name}: {note.strip()}")
    if args:
        lines += ["", "    Args:", *args]
    lines.append('    """')
    # positional arguments bind to the shown parameters only: an odd name is never reached by position
    return PythonTool(spec.name, py_name, tuple(n for n in ordered if n not in odd), "\n".join(lines))


def annotation(schema: dict[str, Any]) -> str:
    """A Python annotation for a JSON schema: close enough to read, never executed."""
    if "enum" in schema:
        return "str" if all(isinstance(v, str) for v in schema["enum"]) else "Any"
    for union in ("anyOf", "oneOf"):
        if isinstance(schema.get(union), (list, tuple)):
            hints = dict.fromkeys(annotation(s) for s in schema[union] if isinstance(s, dict))
            return " | ".join(hints) or "Any"
    kind = schema.get("type")
    if isinstance(kind, (list, tuple)):
        return " | ".join(dict.fromkeys(annotation({**schema, "type": k}) for k in kind)) or "Any"
    if kind == "array":
        items = schema.get("items")
        return f"list[{annotation(items)}]" if isinstance(items, dict) and items else "list"
    if kind == "object":
        return "dict"
    return _SIMPLE.get(str(kind), "Any")
