"""Unclear functionality boundaries: look-alike functions sit next to the real ones.

Each decoy (``lookalike_data.DECOYS``) is executable: the stressor answers it itself (the world does not know
it) with a plausible result that is wrong for the user's intent, derived from real world data where a read-only
lookup allows. Decoys never change world state, and gold is untouched; a decoy call shows up in the trace as a
tool call gold does not have, which is what the judges score.

Row params: ``decoys`` (decoy names); ``tools`` names the real function each sits beside.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable
from typing import Any

from sim.core import CallContext, CallNext, CallOutcome, ToolCall, ToolResult, ToolSpec, failure
from worlds.stressors.scenario import ScenarioStressor
from worlds.stressors.types.lookalike_data import DECOYS, Decoy


def _code(text: str, digits: int = 6) -> str:
    """A stable number derived from text (the same across processes, unlike ``hash``)."""
    return str(int(hashlib.sha256(text.encode()).hexdigest(), 16) % 10**digits).zfill(digits)


def _scene_preview(content: Any, call: ToolCall) -> Any:
    scenes = {s["scene_id"]: s for s in content["scenes"]}
    scene = scenes.get(call.arguments.get("scene_id"))
    if scene is None:
        return None
    return {"scene_id": scene["scene_id"], "would_change": scene["changes"], "applied": False}


def _climate_normals(content: Any, call: ToolCall) -> Any:
    now = int(content["temperature_c"])
    humidity = int(content["humidity_percent"])
    return {
        "city_id": content["city_id"],
        "period": "1991-2020",
        "average_high_c": now + 2,
        "average_low_c": now - 5,
        "average_precipitation_mm": 30 + humidity // 4,
    }


def _historical_weather(content: Any, call: ToolCall) -> Any:
    shift = int(_code(content["city_id"], 1)) % 5 - 2
    return {
        "city_id": content["city_id"],
        "date": "one year ago today",
        "condition": "overcast" if content["condition"] != "overcast" else "sunny",
        "temperature_c": int(content["temperature_c"]) + shift,
    }


def _previous_close(content: Any, call: ToolCall) -> Any:
    first = content["closes"][0]
    return {
        "symbol": content["symbol"],
        "currency": content["currency"],
        "date": first["date"],
        "close": first["close"],
    }


def _store_listings(content: Any, call: ToolCall) -> Any:
    prices = {"song": 0.99, "album": 7.99, "movie": 9.99, "podcast": 0.0}
    return {
        "listings": [
            {"listing_id": f"store_{_code(r['item_id'])}", "title": r["title"], "price": prices.get(r["type"], 4.99)}
            for r in content["results"]
        ]
    }


def _inventory(content: Any, call: ToolCall) -> Any:
    return {
        "skus": [
            {
                "sku": f"SKU-{_code(p['product_id'])}",
                "name": p["name"],
                "bin": f"A{_code(p['name'], 2)}",
                "on_hand": p["stock"],
            }
            for p in content["products"]
        ]
    }


def _menu_highlights(content: Any, call: ToolCall) -> Any:
    return {
        "restaurant": content["name"],
        "highlights": [{"dish": d["name"], "price": d["price"]} for d in content["menu"][:3]],
    }


def _voicemail(content: Any, call: ToolCall) -> Any:
    missed = [c for c in content["calls"] if c.get("status") == "missed"]
    return {
        "voicemails": [
            {"voicemail_id": f"vm_{c['call_id']}", "from": c["contact"], "left_at": c["started_at"], "seconds": 0}
            for c in missed
        ]
    }


def _utc_time(content: Any, call: ToolCall) -> Any:
    return {"utc": content["now"], "timezone": "UTC"}


TRANSFORMS: dict[str, Callable[[Any, ToolCall], Any]] = {
    "scene_preview": _scene_preview,
    "climate_normals": _climate_normals,
    "historical_weather": _historical_weather,
    "previous_close": _previous_close,
    "store_listings": _store_listings,
    "inventory": _inventory,
    "menu_highlights": _menu_highlights,
    "voicemail": _voicemail,
    "utc_time": _utc_time,
}


def decoy_spec(name: str, decoy: Decoy) -> ToolSpec:
    return ToolSpec(name=name, description=decoy.description, parameters=decoy.parameters, read_only=True)


class LookAlike(ScenarioStressor):
    """Offers decoy functions beside the real ones and answers their calls without touching the world."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.decoys: dict[str, Decoy] = {name: DECOYS[name] for name in self.params["decoys"]}
        self.offered: frozenset[str] = frozenset()
        self.issued = 0

    def on_spec(self, specs: list[ToolSpec], instructions: str) -> tuple[list[ToolSpec], str]:
        taken = {s.name for s in specs}
        out: list[ToolSpec] = []
        offered = set()
        for spec in specs:
            out.append(spec)
            if spec.name in self.tools:
                for name, decoy in self.decoys.items():
                    if name not in taken and name not in offered:  # never shadow a real function
                        out.append(decoy_spec(name, decoy))
                        offered.add(name)
        self.offered = frozenset(offered)
        return out, instructions

    async def on_call(self, call: ToolCall, ctx: CallContext, next: CallNext) -> CallOutcome:
        decoy = self.decoys.get(call.name)
        if decoy is None or call.name not in self.offered:
            return await next(call)
        missing = [a for a in decoy.parameters["required"] if a not in call.arguments]
        unknown = [a for a in call.arguments if a not in decoy.parameters["properties"]]
        if missing or unknown:
            what = f"missing {', '.join(missing)}" if missing else f"unknown argument {', '.join(unknown)}"
            refusal = failure(call, "invalid_arguments", "bad_arguments", f"{call.name}: {what}.")
            return CallOutcome.answered(refusal, self.name)
        kind = decoy.answer[0]
        if kind == "derive":
            return await self._derive(call, decoy, next)
        content: dict[str, Any] = dict(call.arguments)
        if kind == "ack":
            self.issued += 1
            content[f"{decoy.answer[1]}_id"] = f"{decoy.answer[1]}-{self.issued:04d}"
        content.update(copy.deepcopy(decoy.answer[-1]))  # results are not frozen: no shared lists
        return CallOutcome.answered(ToolResult(call_id=call.id, status="success", content=content), self.name)

    async def _derive(self, call: ToolCall, decoy: Decoy, next: CallNext) -> CallOutcome:
        """Run the real read-only lookup and reshape its answer; its refusal (unknown id...) is the decoy's."""
        _, tool, names, transform = decoy.answer
        lookup = ToolCall(id=call.id, name=tool, arguments={n: call.arguments[n] for n in names if n in call.arguments})
        outcome = await next(lookup, fired=self.name)
        real = outcome.result
        if not real.ok:
            return outcome.replaced(real.model_copy(update={"call_id": call.id}))
        content = TRANSFORMS[transform](real.content, call)
        if content is None:
            message = f"{call.name}: nothing found for {dict(call.arguments)}."
            return outcome.replaced(failure(call, "not_found", "not_found", message))
        return outcome.replaced(ToolResult(call_id=call.id, status="success", content=content))


STRESSOR = LookAlike
