"""What a drafted goal's reply must give, and which arguments it leaves free.

- ``answer``: the exact value(s) the draft names; a draft is kept only when each of them is a value of the gold
  calls' responses as the world answered them (the model drafts before the simulator answers, so an answer it
  made up is caught here, not in a run). ``gold_answer``, the oracle's reply, is rendered from the answer, so a
  drafted goal never carries one without the other and the completion judge accepts the oracle's reply.
- ``free_arguments``: every optional argument of a gold call whose value the request does not state is left free
  (``tool.param``), so an agent adding a harmless ``limit: 10`` is not marked wrong.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from sim.core import GoldCall
from worlds.simulated.operations import ApiOperation


def atoms(value: Any) -> Iterator[str | Decimal | bool]:
    """The scalar values inside ``value`` (dict values, list items), nulls left out; numbers as Decimal."""
    if isinstance(value, Mapping):
        for item in value.values():
            yield from atoms(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from atoms(item)
    elif isinstance(value, bool):
        yield value
    elif isinstance(value, int | float):
        yield Decimal(str(value))
    elif isinstance(value, str):
        yield value


def _comparable(atom: str | Decimal | bool) -> str | Decimal | bool:
    if isinstance(atom, str):
        try:
            return Decimal(atom.strip().replace(",", ""))  # "24" is the number 24, as the completion judge reads it
        except InvalidOperation:
            return " ".join(atom.casefold().split())
    return atom


def ungrounded(answer: Any, responses: Sequence[Any]) -> list[str]:
    """The answer's values that are no value of any response (case and spacing aside; numbers by value)."""
    seen = {(type(c), c) for c in map(_comparable, atoms(list(responses)))}
    missing = []
    for atom in atoms(answer):
        value = _comparable(atom)
        if (type(value), value) not in seen:
            missing.append(str(atom))
    return missing


def answer_text(answer: Any) -> str:
    """The oracle's reply for an answer: its values, ", "-joined; one line per record of a list of records."""
    rows = answer if isinstance(answer, list) and any(isinstance(r, Mapping | list) for r in answer) else [answer]
    lines = [", ".join(_cell(a) for a in atoms(row)) for row in rows]
    return "\n".join(line for line in lines if line) or "No results."


def _cell(atom: str | Decimal | bool) -> str:
    if isinstance(atom, bool):
        return "yes" if atom else "no"
    if isinstance(atom, Decimal):
        return str(atom.quantize(Decimal("0.01")).normalize()) if atom != atom.to_integral() else str(int(atom))
    return atom


def free_arguments(request: str, gold: Sequence[GoldCall], operations: Mapping[str, ApiOperation]) -> list[str]:
    """``tool.param`` for every optional argument of the gold's operations whose value the request does not state."""
    said = " ".join(request.casefold().split())
    free: set[str] = set()
    for call in gold:
        operation = operations.get(call.name)
        if operation is None:
            continue
        required = set(operation.parameters.get("required") or ())
        for param in operation.parameters.get("properties") or {}:
            if param not in required and not _stated(call.arguments.get(param), said):
                free.add(f"{call.name}.{param}")
    return sorted(free)


def _stated(value: Any, said: str) -> bool:
    """Whether the request states every scalar of ``value`` (absent or null: it states nothing)."""
    values = [a for a in atoms(value) if not isinstance(a, bool)]
    return bool(values) and all(" ".join(str(a).casefold().split()) in said for a in values)
