"""Ad-hoc rules: a tool insists on a documented legacy or domain format for one argument.

Real APIs carry such rules (E.164 phone numbers, ISO 8601 times, hex colours, carrier-prefixed order
references); an agent must read the documentation instead of reusing the value another tool showed it. The
spec states the format; a call in that format is converted back to the world's native value and passed on;
anything else is refused tersely without reaching the world. Gold is rewritten into the format, so replaying it
still scores, and the world keeps its native data.

Row params: ``format`` (a key of ``FORMATS``), ``args`` (argument names it applies to, in every targeted tool;
a list argument is converted element by element), ``doc`` (the sentence that documents the format) and what the
format needs (``colors``, ``carriers``, ``device_types``, ``timezone``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from typing import Any
from zoneinfo import ZoneInfo

from sim.core import CallContext, CallNext, CallOutcome, GoldCall, Task, ToolCall, ToolSpec, failure
from worlds.stressors.scenario import ScenarioStressor
from worlds.stressors.types.spec_edit import edit_spec, rewrite_paths

Params = Mapping[str, Any]


@dataclass(frozen=True)
class Format:
    """A reversible mapping between the world's native value and the required written form."""

    pattern: str
    """JSON-schema pattern of the written form (also checked before parsing)."""
    to_native: Callable[[str, Params], Any]
    """Written form -> native value; raises ValueError when the value is not one the world has."""
    to_custom: Callable[[Any, Params], str]
    error: str


def _phone_native(text: str, p: Params) -> str:
    """E.164 back to the spaced form the address book stores: UK mobiles '+44 7700 900123', London '+44 20 ...'."""
    national = text[3:]
    if not text.startswith("+44"):
        return text
    if national.startswith("20") and len(national) == 10:
        return f"+44 20 {national[2:6]} {national[6:]}"
    if national.startswith("7") and len(national) == 10:
        return f"+44 {national[:4]} {national[4:]}"
    return f"+44 {national}"


def _phone_custom(native: Any, p: Params) -> str:
    return "+" + re.sub(r"[^0-9]", "", str(native))


def _time_native(text: str, p: Params) -> str:
    return text[:5]


def _datetime_native(text: str, p: Params) -> str:
    moment = datetime.fromisoformat(text)
    if moment.second or moment.microsecond:
        raise ValueError("whole minutes only")
    return moment.astimezone(ZoneInfo(p["timezone"])).strftime("%Y-%m-%dT%H:%M")


def _datetime_custom(native: Any, p: Params) -> str:
    return datetime.fromisoformat(str(native)).replace(tzinfo=ZoneInfo(p["timezone"])).isoformat()


def _duration_native(text: str, p: Params) -> int:
    match = re.fullmatch(r"PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?", text)
    if match is None or text == "PT":
        raise ValueError("not a duration")
    hours, minutes, seconds = (int(g or 0) for g in match.groups())
    return hours * 3600 + minutes * 60 + seconds


def _duration_custom(native: Any, p: Params) -> str:
    hours, rest = divmod(int(native), 3600)
    minutes, seconds = divmod(rest, 60)
    parts = [f"{n}{unit}" for n, unit in ((hours, "H"), (minutes, "M"), (seconds, "S")) if n]
    return "PT" + ("".join(parts) or "0S")


def _carrier_code(order_id: str, p: Params) -> str:
    carrier = p["carriers"].get(order_id)
    return re.sub(r"[^A-Z0-9]", "", carrier.upper()) if carrier else str(p["pending_code"])


def _order_native(text: str, p: Params) -> str:
    code, _, number = text.partition("-")
    native = f"order-{number}"
    if code != _carrier_code(native, p):
        raise ValueError("wrong carrier")
    return native


def _order_custom(native: Any, p: Params) -> str:
    return f"{_carrier_code(str(native), p)}-{str(native).removeprefix('order-')}"


def _endpoint_native(text: str, p: Params) -> str:
    kind, _, device_id = text.partition("_")
    if p["device_types"].get(device_id) != kind:
        raise ValueError("wrong device type")
    return device_id


def _endpoint_custom(native: Any, p: Params) -> str:
    return f"{p['device_types'][native]}_{native}"


def _color_native(text: str, p: Params) -> str:
    by_hex = {code.upper(): name for name, code in p["colors"].items()}
    return by_hex[text.upper()]  # KeyError is a ValueError's sibling: caught below


def _color_custom(native: Any, p: Params) -> str:
    return str(p["colors"][native])


def _media_native(text: str, p: Params) -> str:
    _, kind, slug = text.split(":", 2)
    return f"{kind}_{slug}"


def _media_custom(native: Any, p: Params) -> str:
    kind, _, slug = str(native).partition("_")
    return f"media:{kind}:{slug}"


FORMATS: Mapping[str, Format] = MappingProxyType(
    {
        "e164": Format(r"^\+[1-9][0-9]{7,14}$", _phone_native, _phone_custom, "Invalid phone number."),
        "iso_time": Format(
            r"^([01][0-9]|2[0-3]):[0-5][0-9]:00$", _time_native, lambda v, p: f"{v}:00", "Invalid time."
        ),
        "iso_datetime": Format(
            r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$",
            _datetime_native,
            _datetime_custom,
            "Invalid date-time.",
        ),
        "iso_duration": Format(
            r"^PT([0-9]+H)?([0-9]+M)?([0-9]+S)?$", _duration_native, _duration_custom, "Invalid duration."
        ),
        "carrier_order": Format(r"^[A-Z0-9]+-[0-9]+$", _order_native, _order_custom, "Invalid order reference."),
        "device_endpoint": Format(r"^[a-z]+_[a-z0-9_]+$", _endpoint_native, _endpoint_custom, "Invalid endpoint."),
        "hex_color": Format(r"^#[0-9A-Fa-f]{6}$", _color_native, _color_custom, "Invalid color."),
        "media_uri": Format(
            r"^media:(song|album|movie|podcast):[a-z0-9_]+$", _media_native, _media_custom, "Invalid media id."
        ),
    }
)


class AdHocFormat(ScenarioStressor):
    """One argument of the targeted tools must be written in a documented format; the world gets its native value."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.format = FORMATS[self.params["format"]]
        self.args: tuple[str, ...] = tuple(self.params["args"])
        self.doc = str(self.params["doc"])
        self.active = True  # False: the row's data does not cover this task's values (another world's ids)

    # what the agent reads ----------------------------------------------------------------------------------

    def on_spec(self, specs: list[ToolSpec], instructions: str) -> tuple[list[ToolSpec], str]:
        if not self.active:
            return specs, instructions
        return [self._spec(s) if s.name in self.tools else s for s in specs], instructions

    def _spec(self, spec: ToolSpec) -> ToolSpec:
        present = [a for a in self.args if a in spec.parameters.get("properties", {})]
        if not present:
            return spec

        def edit(properties: dict[str, Any]) -> None:
            for arg in present:
                prop = properties[arg]
                target = prop["items"] if prop.get("type") == "array" else prop
                for key in ("enum", "minimum", "maximum"):
                    target.pop(key, None)
                target.update(type="string", pattern=self.format.pattern, description=self.doc)
                if target is not prop:
                    prop["description"] = f"{prop['description']} Each: {self.doc}"

        return edit_spec(spec, f"{spec.description} {self.doc}", edit)

    # what the agent observes -------------------------------------------------------------------------------

    async def on_call(self, call: ToolCall, ctx: CallContext, next: CallNext) -> CallOutcome:
        if not self.active or not any(a in call.arguments for a in self.args) or not self.targets(call):
            return await next(call)
        arguments = dict(call.arguments)
        for arg in self.args:
            if arg in arguments:
                native = self._native(arguments[arg])
                if native is _INVALID:
                    refusal = failure(call, "invalid_arguments", "invalid_format", self.format.error)
                    return CallOutcome.answered(refusal, self.name)
                arguments[arg] = native
        return await next(call.model_copy(update={"arguments": arguments}), fired=self.name)

    def on_replay(self, call: ToolCall, goal: int) -> ToolCall:
        """A replayed gold call (the isolated setup) in the world's own values: what ``on_call`` passes on."""
        if not self.active or call.name not in self.tools:
            return call
        arguments = dict(call.arguments)
        for arg in self.args:
            if arg in arguments:
                native = self._native(arguments[arg])
                if native is _INVALID:
                    raise ValueError(f"{self.name}: gold {call.name}({arg}={arguments[arg]!r}) is not in its format")
                arguments[arg] = native
        return call.model_copy(update={"arguments": arguments})

    def _native(self, value: Any) -> Any:
        if isinstance(value, list):
            values = [self._native(v) for v in value]
            return _INVALID if _INVALID in values else values
        if not isinstance(value, str) or re.fullmatch(self.format.pattern, value) is None:
            return _INVALID
        try:
            return self.format.to_native(value, self.params)
        except (ValueError, KeyError):
            return _INVALID

    # what the gold expects ---------------------------------------------------------------------------------

    def on_task(self, task: Task) -> Task:
        try:
            return rewrite_paths(task, lambda _goal, path: [self._gold(c) for c in path])
        except KeyError:
            # A value the row's table has no entry for (a world whose tools share names with the row's, not its
            # ids): the format cannot be stated for this task, so the scenario stays out of the episode.
            self.active = False
            return task

    def _gold(self, call: GoldCall) -> GoldCall:
        if call.name not in self.tools or not any(a in call.arguments for a in self.args):
            return call
        arguments = dict(call.arguments)
        for arg in self.args:
            if arg in arguments:
                value = arguments[arg]
                convert = self.format.to_custom
                arguments[arg] = (
                    [convert(v, self.params) for v in value] if isinstance(value, list) else convert(value, self.params)
                )
        return call.model_copy(update={"arguments": arguments})


_INVALID = object()
"""Marks a value the format refuses (None may be a legitimate native value)."""

STRESSOR = AdHocFormat
