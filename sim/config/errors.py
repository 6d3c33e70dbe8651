"""The error every bad setting raises, with a message naming where the value came from."""

from __future__ import annotations


class ConfigError(Exception):
    """Bad configuration; the message names the file (or option) and the field."""
