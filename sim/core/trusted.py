"""Building a value squall computed itself without validating it again, field by field.

A pydantic model's ``__init__`` validates every field; the gateway builds several values per model request (a
request's ``Usage``, its sums, the ``ModelCall`` the trace keeps) from numbers that already have their fields'
types. ``trusted`` gives the same object ``__init__`` would: the same ``__dict__`` (every field, in declared
order), the same set fields, no extra or private values, so equality, hashing, frozen-ness and dumps are
unchanged. ``model_construct`` does this too, but walks the fields in Python and costs more than validating.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

_new = object.__new__
_set = object.__setattr__


def trusted(cls: type[M], values: dict[str, Any], set_fields: Iterable[str] | None = None) -> M:
    """``cls(**given)``, unvalidated. ``values``: every field of ``cls``, in declared order, each already of the type
    validation would give it (an int for an int field, a float for a float one: pydantic turns an int into a
    float); ``set_fields``: the fields ``given`` named (None: all of them), what ``model_fields_set`` answers.
    Only for models without private attributes, ``model_post_init`` or validators that would change the values."""
    value: M = _new(cls)
    _set(value, "__dict__", values)
    _set(value, "__pydantic_fields_set__", set(values if set_fields is None else set_fields))
    _set(value, "__pydantic_extra__", None)
    _set(value, "__pydantic_private__", None)
    return value
