"""Deeply immutable JSON values, for the dicts inside frozen value types.

A frozen pydantic model still hands out its dict fields by reference: a stressor that edited
``spec.parameters["properties"]`` in place would change the spec for every later episode sharing it.
``freeze`` turns dicts into ``FrozenDict`` and lists into ``FrozenList``, all the way down. They subclass
dict and list, so JSON encoders and schema validators (jsonschema checks arrays with
``isinstance(x, list)``) take them as they are, and they compare equal to plain values. ``thaw`` gives back a plain,
mutable deep copy to build a changed value from.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn


def _refuse(*args: object, **kwargs: object) -> NoReturn:
    raise TypeError("this value is frozen: build a changed copy from sim.core.frozen.thaw(value)")


class FrozenDict(dict[str, Any]):
    """A dict that refuses every change."""

    __slots__ = ()

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict:
        return self

    def __reduce__(self) -> tuple[type[FrozenDict], tuple[dict[str, Any]]]:
        return FrozenDict, (dict(self),)

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items(), key=lambda kv: kv[0])))


class FrozenList(list[Any]):
    """A list that refuses every change."""

    __slots__ = ()

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def __copy__(self) -> FrozenList:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenList:
        return self

    def __reduce__(self) -> tuple[type[FrozenList], tuple[list[Any]]]:
        return FrozenList, (list(self),)

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(self))


def freeze(value: Any) -> Any:
    """The value with every dict and list (or tuple) frozen, all the way down; scalars as they are."""
    if isinstance(value, FrozenDict | FrozenList):
        return value
    if isinstance(value, Mapping):
        return FrozenDict({str(k): freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return FrozenList(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """A plain deep copy: dicts and lists again, free to edit."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(v) for v in value]
    return value
