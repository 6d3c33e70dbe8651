"""``squall run --help`` with every setting's default beside its option.

The run's options default to None on the command line (so that a config file's value is not overridden by an
option nobody gave); their real defaults live in ``RunConfig``. This command class shows those."""

from __future__ import annotations

from typing import Any

from pydantic_core import PydanticUndefined
from typer.core import TyperCommand, TyperOption


def default_text(field: str) -> str | None:
    """A RunConfig field's default as --help shows it; None where there is none to show."""
    from sim.config.run_config import RunConfig

    info = RunConfig.model_fields.get(field)
    if info is None or info.default is PydanticUndefined or info.default is None:
        return None
    value: Any = info.default
    if isinstance(value, bool) or value in ([], {}, ""):
        return None
    return str(value)


class RunCommand(TyperCommand):
    """``squall run``: each option's help ends with the setting's default (from RunConfig)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if isinstance(param, TyperOption) and param.name and not param.is_flag:
                text = default_text(param.name)
                if text is not None:
                    param.show_default = text
