"""The canonical form of a call's arguments: the key a simulated response is cached under.

StableToolBench keys its cache on ``str(tool_input)``, a Python repr in which key order matters, so the same call
written twice misses. Here keys are sorted, integral floats are ints (``1.0`` == ``1``, as JSON Schema says), and
the text is compact JSON: the same call always has the same key, whoever wrote it.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any


def normalised(value: Any) -> Any:
    """Plain JSON values with every integral float an int; mappings and sequences rebuilt as dicts and lists."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer():
            return int(value)
        return value
    if isinstance(value, Mapping):
        return {str(k): normalised(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [normalised(v) for v in value]
    return str(value)


def canonical_json(value: Any) -> str:
    """Compact JSON with sorted keys of the normalised value."""
    return json.dumps(normalised(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(value: Any, length: int = 16) -> str:
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()[:length]
