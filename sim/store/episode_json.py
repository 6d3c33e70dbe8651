"""An episode's stored JSON: its record with the tool specs named by reference to a toolkit stored once
(``sim.store.toolkits``), and the record read back with its toolkit in place.

``EpisodeResult.tools`` is most of an episode's record (smart_home: ~40% of the bytes, ~60% of the encoding time; a
SEL world over Spider: 1.43 MB of a 1.45 MB record), yet the specs are the world's, shared by every episode. The
record is encoded around them, ``"toolkit_ref":"<sha>"`` where ``"tools":[...]`` was: the other fields' bytes are
exactly ``json_line(result)``'s (pydantic writes fields in order, compactly). A toolkit's JSON is the specs' JSON,
each encoded once and kept (a spec's ``parameters`` is a deeply frozen JSON schema, which pydantic encodes by
inspecting every value), and a toolkit is hashed once while its specs are kept.

Records stored before toolkits were (``"tools":[...]`` inline) read as they always did; so do the records this
module cannot split (a lone surrogate, a subclass): they are stored whole, inline.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TypeVar

from pydantic import BaseModel, create_model
from pydantic_core import PydanticSerializationError

from sim.core.text_check import json_line
from sim.core.tools import ToolSpec
from sim.core.trace import EpisodeResult
from sim.store.toolkits import StoredToolkits, Toolkit, ToolkitError, toolkit_of

M = TypeVar("M", bound=BaseModel)

TOOLKIT_REF = "toolkit_ref"

_FIELDS = list(EpisodeResult.model_fields)
_AT = _FIELDS.index("tools")
_BEFORE: set[str] = set(_FIELDS[:_AT])  # never empty (episode_id ...): the head ends with "}"
_AFTER: set[str] = set(_FIELDS[_AT + 1 :])  # never empty (goal_tools ...): the tail starts with "{"

_KEEP = 4096
"""Specs whose JSON is kept. Worlds share theirs across episodes; stressed runs make new ones (expansions, rewrites):
the memo is dropped whole when full rather than grow with a long run."""

_KEEP_TOOLKITS = 16
"""Toolkits whose stored form is kept, by their specs' identities (a world's, a few stressed variants')."""

_spec_json: dict[int, tuple[ToolSpec, str]] = {}
"""id(spec) -> (the spec, its JSON): the spec is held so its id cannot be reused by another object while kept."""

_toolkits: dict[tuple[int, ...], tuple[list[ToolSpec], Toolkit]] = {}
"""ids of a toolkit's specs -> (the specs, held as ``_spec_json`` holds them, and the stored toolkit)."""


@dataclass(frozen=True, slots=True)
class EncodedEpisode:
    """An episode as the store holds it: its line (newline included) and the toolkit it names (None: inline)."""

    line: bytes
    toolkit: Toolkit | None


def _tool_json(spec: ToolSpec) -> str:
    kept = _spec_json.get(id(spec))
    if kept is not None and kept[0] is spec:
        return kept[1]
    text = spec.model_dump_json()  # a lone surrogate raises here: the caller falls back to json_line
    if len(_spec_json) >= _KEEP:
        _spec_json.clear()
    _spec_json[id(spec)] = (spec, text)
    return text


def _toolkit(tools: list[ToolSpec]) -> Toolkit:
    key = tuple(map(id, tools))
    kept = _toolkits.get(key)
    if kept is not None:  # the same spec objects (held by the entry, so their ids are theirs): the same toolkit
        return kept[1]
    toolkit = toolkit_of(("[" + ",".join([_tool_json(spec) for spec in tools]) + "]").encode("utf-8"))
    if len(_toolkits) >= _KEEP_TOOLKITS:
        _toolkits.clear()
    _toolkits[key] = (list(tools), toolkit)
    return toolkit


def encode_episode(result: EpisodeResult) -> EncodedEpisode:
    """The record's line with its toolkit by reference, and that toolkit (to be stored before the line)."""
    tools = result.tools
    if type(result) is not EpisodeResult or any(type(spec) is not ToolSpec for spec in tools):
        return _inline(result)  # subclasses would encode differently as a field than alone: the plain path
    try:
        head = result.model_dump_json(include=_BEFORE)
        tail = result.model_dump_json(include=_AFTER)
        toolkit = _toolkit(tools)
    except PydanticSerializationError:  # a lone surrogate: json_line scrubs the record whole
        return _inline(result)
    line = f'{head[:-1]},"{TOOLKIT_REF}":"{toolkit.sha}",{tail[1:]}\n'
    return EncodedEpisode(line.encode("utf-8"), toolkit)


def _inline(result: EpisodeResult) -> EncodedEpisode:
    return EncodedEpisode((json_line(result) + "\n").encode("utf-8"), None)


@functools.cache
def _by_reference(model: type[BaseModel]) -> type[BaseModel]:
    """``model`` as a stored line may hold it: its tools inline or named by ``toolkit_ref``."""
    return create_model(
        f"{model.__name__}ByReference",
        __base__=model,
        tools=(list[ToolSpec] | None, None),
        toolkit_ref=(str | None, None),
    )


def decode_episode(raw: bytes, model: type[M], toolkits: StoredToolkits) -> M:
    """A stored line as ``model`` (``EpisodeResult`` or a light view of it), its toolkit in place where ``model`` has
    ``tools``. Raises pydantic's ValidationError for a line that is no record, ToolkitError for a toolkit missing."""
    if "tools" not in model.model_fields:
        return model.model_validate_json(raw)  # a view without tools ignores the reference
    stored = _by_reference(model).model_validate_json(raw)
    ref: str | None = getattr(stored, TOOLKIT_REF)
    inline: list[ToolSpec] | None = stored.tools  # type: ignore[attr-defined]
    if (ref is None) == (inline is None):
        raise ToolkitError(f"a record needs its tools inline or a {TOOLKIT_REF}, not {'both' if ref else 'neither'}")
    tools = list(toolkits.tools(ref)) if ref is not None else inline
    values = {name: getattr(stored, name) for name in model.model_fields} | {"tools": tools}
    fields_set = (stored.model_fields_set - {TOOLKIT_REF}) | {"tools"}
    return model.model_construct(_fields_set=fields_set, **values)  # validated above, as ``stored``
