"""How τ²'s tools refuse a call: an entity that does not exist, or a request the rules do not allow."""

from __future__ import annotations

from worlds.common.errors import ToolError


def missing(what: str) -> ToolError:
    return ToolError("not_found", "not_found", f"{what} not found")


def refused(message: str) -> ToolError:
    return ToolError("failed", "refused", message)
