"""An episode's stored JSON with its tool specs encoded once per spec, not once per episode.

``EpisodeResult.tools`` is most of an episode's record (smart_home: ~40% of the bytes, ~60% of the encoding time: a
spec's ``parameters`` is a deeply frozen JSON schema, which pydantic encodes by inspecting every value), yet the specs
are the world's, shared by every episode. The record is encoded around them and each spec's JSON spliced in: the
bytes are exactly ``json_line(result)``'s (pydantic writes fields in order, compactly, a list element as its own
model would be written).
"""

from __future__ import annotations

from pydantic_core import PydanticSerializationError

from sim.core.text_check import json_line
from sim.core.tools import ToolSpec
from sim.core.trace import EpisodeResult

_FIELDS = list(EpisodeResult.model_fields)
_AT = _FIELDS.index("tools")
_BEFORE: set[str] = set(_FIELDS[:_AT])  # never empty (episode_id ...): the head ends with "}"
_AFTER: set[str] = set(_FIELDS[_AT + 1 :])  # never empty (goal_tools ...): the tail starts with "{"

_KEEP = 4096
"""Specs whose JSON is kept. Worlds share theirs across episodes; stressed runs make new ones (expansions, rewrites):
the memo is dropped whole when full rather than grow with a long run."""

_spec_json: dict[int, tuple[ToolSpec, str]] = {}
"""id(spec) -> (the spec, its JSON): the spec is held so its id cannot be reused by another object while kept."""


def _tool_json(spec: ToolSpec) -> str:
    kept = _spec_json.get(id(spec))
    if kept is not None and kept[0] is spec:
        return kept[1]
    text = spec.model_dump_json()  # a lone surrogate raises here: the caller falls back to json_line
    if len(_spec_json) >= _KEEP:
        _spec_json.clear()
    _spec_json[id(spec)] = (spec, text)
    return text


def episode_json(result: EpisodeResult) -> str:
    """``json_line(result)``, byte for byte."""
    tools = result.tools
    if type(result) is not EpisodeResult or any(type(spec) is not ToolSpec for spec in tools):
        return json_line(result)  # subclasses would encode differently as a field than alone: the plain path
    try:
        head = result.model_dump_json(include=_BEFORE)
        tail = result.model_dump_json(include=_AFTER)
        listed = ",".join([_tool_json(spec) for spec in tools])
    except PydanticSerializationError:  # a lone surrogate: json_line scrubs the record whole
        return json_line(result)
    return f'{head[:-1]},"tools":[{listed}],{tail[1:]}'
