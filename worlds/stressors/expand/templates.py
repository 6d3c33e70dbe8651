"""Templated related-but-different tools, written from any world's specs alone (names, descriptions, parameters).

Each template turns one original tool into a neighbour that shares its subject and arguments but does a different
job: a read becomes its history, an export, a subscription, a problem report, a share; an action becomes a scheduled
one, a dry run, an approval request, its change log. Nothing names a domain, so a new world (SQL-derived ones too)
gets neighbours without anyone writing them.

Every neighbour says what it answers (``Answer``): the stressor replies by itself, honestly for what the neighbour
claims (a schedule id, a preview that changes nothing, an empty history), without touching the world.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from sim.core import ToolSpec
from sim.core.frozen import thaw
from sim.core.tools import Frozen

AnswerKind = Literal["ack", "preview", "listing", "export", "help", "neutral"]
Keep = Literal["all", "optional", "ids", "none"]
"""Which of the source's arguments a neighbour takes: all (as they are), all optional, only identifiers (optional),
none."""
NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
"""What OpenAI-style function names allow: a neighbour with a longer name is not offered."""
_SEARCHES = ("search", "find", "lookup", "query")
_FILLER = frozenset({"to", "from", "for", "on", "of", "in", "all", "a", "the", "by"})


class Answer(Frozen):
    """How the stressor answers a neighbour's call (it never reaches the world)."""

    kind: AnswerKind = Field(
        description="ack: a new id and a status; preview: the request that would be made, nothing applied; listing: "
        "an empty list under `key`; export: a download link; help: the source tool's own documentation; neutral: "
        '`{"status": "ok"}` (a real function of the world that the episode\'s world lacks, answered as a spec-only '
        "world answers)."
    )
    key: str = Field(default="", description="ack: the id's noun ('schedule' -> schedule_id); listing: list key.")
    status: str = Field(default="", description="ack: the status reported ('scheduled', 'pending').")

    @property
    def read_only(self) -> bool:
        """Only an acknowledgement records something (a schedule, a ticket); every other answer only reports."""
        return self.kind != "ack"


class Candidate(Frozen):
    """One related-but-different tool offered beside the originals."""

    spec: ToolSpec
    source: str = Field(description="The original tool it was written from.")
    origin: str = Field(description="'template:<slug>' or 'model:<provider:name>'.")
    answer: Answer
    similarity: float | None = Field(
        default=None,
        description="Highest cosine similarity of its signature to any original tool's; None when not measured "
        "(the unfiltered lexical fallback).",
    )
    nearest: str | None = Field(default=None, description="The original it is most similar to, when measured.")


def signature(spec: ToolSpec) -> str:
    """The text compared for equivalence: name, argument names and description (what an agent reads)."""
    args = ", ".join(spec.parameters.get("properties", {}))
    return f"{spec.name}({args}): {spec.description}"


def object_words(name: str) -> list[str]:
    """What a tool is about: its name without the leading verb and filler (``add_to_watchlist`` -> watchlist)."""
    words = [w for w in re.split(r"[_\-\s]+", name) if w]
    rest = words[1:] if len(words) > 1 else words
    kept = [w for w in rest if w.lower() not in _FILLER]
    return kept or words


@dataclass(frozen=True)
class Template:
    """A neighbour pattern: ``name`` and ``description`` are formatted with the source's name and subject."""

    slug: str
    applies: Callable[[ToolSpec], bool]
    name: str
    description: str
    answer: Answer
    extra: tuple[tuple[str, dict[str, Any], bool], ...] = ()
    """Arguments added to the source's: (name, schema, required)."""
    keep: Keep = "all"


def _reads(spec: ToolSpec) -> bool:
    return spec.read_only


def _acts(spec: ToolSpec) -> bool:
    return not spec.read_only


def _reads_current(spec: ToolSpec) -> bool:
    """A lookup of the present state (not a search, a history or a log, whose history says nothing new)."""
    words = spec.name.lower().split("_")
    return spec.read_only and words[0] not in _SEARCHES and not {"history", "log", "logs"} & set(words)


def _starts(*verbs: str) -> Callable[[ToolSpec], bool]:
    return lambda spec: spec.name.split("_", 1)[0].lower() in verbs


def _str(description: str, **more: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **more}


TEMPLATES: tuple[Template, ...] = (
    # neighbours of lookups
    Template(
        "history",
        _reads_current,
        "{name}_history",
        "Archived snapshots of {what} from earlier days, oldest first; never the current values. "
        "`days` sets how far back to look.",
        Answer(kind="listing", key="snapshots"),
        (("days", {"type": "integer", "minimum": 1, "maximum": 90, "description": "How many days back."}, False),),
    ),
    Template(
        "export",
        _reads,
        "export_{obj}",
        "Export {what} to a csv or json file and return a download link that expires after 24 hours. "
        "For spreadsheets and backups; the data is not shown here.",
        Answer(kind="export"),
        (("format", _str("File format.", enum=["csv", "json"]), False),),
    ),
    Template(
        "subscribe",
        _reads,
        "subscribe_to_{obj}_changes",
        "Subscribe to a push or email notification each time {what} change. Returns a subscription id, "
        "not the {what} themselves.",
        Answer(kind="ack", key="subscription", status="active"),
        (("channel", _str("Where notifications go.", enum=["push", "email"]), False),),
    ),
    Template(
        "report",
        _reads,
        "report_{obj}_problem",
        "Report wrong or out-of-date {what} to the provider's support team. Returns a ticket id; nothing is "
        "corrected right away.",
        Answer(kind="ack", key="ticket", status="open"),
        (("problem", _str("What looks wrong."), True),),
    ),
    Template(
        "share",
        _reads,
        "share_{obj}",
        "Send a read-only copy of {what} to someone by email. Returns a share id.",
        Answer(kind="ack", key="share", status="sent"),
        (("recipient_email", _str("Who receives the copy."), True),),
    ),
    Template(
        "archived",
        _starts("list"),
        "list_archived_{obj}",
        "{What} that were archived: they no longer appear in any other listing.",
        Answer(kind="listing", key="archived"),
        keep="optional",
    ),
    Template(
        "saved_search",
        _starts(*_SEARCHES),
        "save_{obj}_search",
        "Save this search for {what} under a label so it can be re-run later. It does not run the search now; "
        "returns a saved-search id.",
        Answer(kind="ack", key="saved_search", status="saved"),
        (("label", _str("A name for the saved search."), True),),
    ),
    # neighbours of actions
    Template(
        "schedule",
        _acts,
        "schedule_{name}",
        "Schedule '{action}' to run at a later date and time instead of now: nothing changes until then. "
        "Returns a schedule id.",
        Answer(kind="ack", key="schedule", status="scheduled"),
        (("run_at", _str("Local date-time to run it, YYYY-MM-DDThh:mm.", format="date-time"), True),),
    ),
    Template(
        "preview",
        _acts,
        "preview_{name}",
        "Dry run: shows the request '{action}' would make with these arguments, and changes nothing.",
        Answer(kind="preview"),
    ),
    Template(
        "approval",
        _acts,
        "request_approval_to_{name}",
        "Ask the account owner to approve '{action}'. Nothing happens unless they approve it in their own app; "
        "returns an approval request id.",
        Answer(kind="ack", key="approval_request", status="pending_approval"),
        (("note", _str("A message for the approver."), False),),
    ),
    Template(
        "change_log",
        _acts,
        "get_{obj}_change_log",
        "Audit trail of earlier changes to {what} made through the admin console, newest first.",
        Answer(kind="listing", key="entries"),
        (("limit", {"type": "integer", "minimum": 1, "maximum": 100, "description": "At most this many."}, False),),
        keep="ids",
    ),
    Template(
        "draft",
        _starts("create", "add", "book", "place", "send", "start", "make", "new", "insert", "post"),
        "save_{obj}_draft",
        "Save an unsent draft of a new {what} for later; a draft is private and changes nothing else. "
        "Returns a draft id.",
        Answer(kind="ack", key="draft", status="draft_saved"),
        keep="optional",
    ),
    # any tool
    Template(
        "help",
        lambda spec: True,
        "get_help_for_{name}",
        "Usage notes for the {name} function: what it needs and returns. Does not call it.",
        Answer(kind="help"),
        keep="none",
    ),
)


def _source_arguments(source: ToolSpec, keep: Keep) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """A copy of the source's schema cut to what the neighbour keeps: (schema, its properties, required)."""
    parameters = thaw(source.parameters)
    parameters["type"] = "object"
    properties: dict[str, Any] = parameters.get("properties", {})
    required = [r for r in parameters.get("required", []) if r in properties]
    if keep == "none":
        properties, required = {}, []
    elif keep == "ids":
        properties = {k: v for k, v in properties.items() if k == "id" or k.endswith("_id")}
    if keep != "all":
        required = []
    parameters["properties"] = properties
    return parameters, properties, required


def _render(template: Template, source: ToolSpec) -> Candidate | None:
    obj = "_".join(object_words(source.name)).lower()
    what = obj.replace("_", " ")
    fields = {"name": source.name, "obj": obj, "what": what, "What": what[:1].upper() + what[1:]}
    fields["action"] = source.name.replace("_", " ")
    name = template.name.format(**fields)
    if not NAME_PATTERN.match(name):
        return None
    parameters, properties, required = _source_arguments(source, template.keep)
    for arg, schema, needed in template.extra:
        if arg in properties:
            return None  # the source already has an argument of that name: the neighbour would be ambiguous
        properties[arg] = schema
        if needed:
            required.append(arg)
    parameters["required"] = required
    spec = ToolSpec(
        name=name,
        description=template.description.format(**fields),
        parameters=parameters,
        read_only=template.answer.read_only,
    )
    return Candidate(spec=spec, source=source.name, origin=f"template:{template.slug}", answer=template.answer)


def templated_candidates(specs: Iterable[ToolSpec], taken: Iterable[str] = ()) -> list[Candidate]:
    """Every template's neighbour of every tool, in tool order; a name already taken (an original, or an earlier
    neighbour) is skipped, so the list never shadows a real function."""
    originals = list(specs)
    seen = {s.name for s in originals} | set(taken)
    out: list[Candidate] = []
    for source in originals:
        for candidate in _neighbours(source):
            if candidate.spec.name not in seen:
                seen.add(candidate.spec.name)
                out.append(candidate)
    return out


_KNOWN_NEIGHBOURS: dict[tuple[str, bool, str], tuple[Candidate, ...]] = {}
_KNOWN_LIMIT = 1024  # a few specs forms per tool: bounded memory (each entry is a handful of candidates)


def _neighbours(source: ToolSpec) -> tuple[Candidate, ...]:
    """Every template's neighbour of one tool, in template order: a pure function of the spec, kept because the
    stressors of an episode rewrite the specs into the same few forms episode after episode (rendering them again
    was most of a stressed episode's CPU). Keyed by what the templates read (not the description), the schema as
    exact JSON: equal dicts may differ in key order or in 1 against 1.0, which the neighbours' schemas would show."""
    try:
        key = (source.name, source.read_only, json.dumps(source.parameters))
    except (TypeError, ValueError):  # a schema holding something JSON cannot say: rendered, never kept
        return _render_all(source)
    found = _KNOWN_NEIGHBOURS.get(key)
    if found is None:
        found = _render_all(source)
        if len(_KNOWN_NEIGHBOURS) >= _KNOWN_LIMIT:
            del _KNOWN_NEIGHBOURS[next(iter(_KNOWN_NEIGHBOURS))]
        _KNOWN_NEIGHBOURS[key] = found
    return found


def _render_all(source: ToolSpec) -> tuple[Candidate, ...]:
    rendered = (_render(t, source) if t.applies(source) else None for t in TEMPLATES)
    return tuple(c for c in rendered if c is not None)
