"""The one way a tool refuses a call."""

from __future__ import annotations

from sim.core import ToolStatus


class ToolError(Exception):
    """A call the world refuses; becomes a ToolResult with this status, code and message."""

    def __init__(self, status: ToolStatus, code: str, message: str) -> None:
        super().__init__(message)
        self.status: ToolStatus = status
        self.code = code
        self.message = message
