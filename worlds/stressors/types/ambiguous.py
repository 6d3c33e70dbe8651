"""Ambiguous descriptions: units, defaults and formats disappear from what the agent reads.

Nothing else changes: the tool still wants degrees Celsius, still defaults to 5, still checks its pattern.
A careful agent asks the user or picks the reading the rest of the documentation supports; a careless one
guesses. Edits are plain text replacements, so each row shows exactly what was taken away.

Row params: ``description`` ([old, new] pairs for the tool description), ``arguments`` ({argument: [[old, new],
...]} for parameter descriptions) and ``drop`` ({argument: [schema keys]}, e.g. ``pattern``), applied to every
targeted tool that has the text or argument.
"""

from __future__ import annotations

from typing import Any

from sim.core import ToolSpec
from worlds.stressors.scenario import ScenarioStressor
from worlds.stressors.types.spec_edit import edit_spec


def _replace(text: str, pairs: list[list[str]]) -> str:
    for old, new in pairs:
        text = text.replace(old, new)
    return text


class Ambiguous(ScenarioStressor):
    """Strips units, defaults or formats from the targeted tools' documentation."""

    def on_spec(self, specs: list[ToolSpec], instructions: str) -> tuple[list[ToolSpec], str]:
        return [self._spec(s) if s.name in self.tools else s for s in specs], instructions

    def _spec(self, spec: ToolSpec) -> ToolSpec:
        arguments: dict[str, list[list[str]]] = self.params.get("arguments", {})
        drop: dict[str, list[str]] = self.params.get("drop", {})

        def edit(properties: dict[str, Any]) -> None:
            for arg, prop in properties.items():
                if arg in arguments and "description" in prop:
                    prop["description"] = _replace(prop["description"], arguments[arg])
                for key in drop.get(arg, []):
                    prop.pop(key, None)

        return edit_spec(spec, _replace(spec.description, self.params.get("description", [])), edit)


STRESSOR = Ambiguous
