"""Offline token counting with tiktoken.

tiktoken fetches its BPE files from a blob URL at first use; offline that fails. `scripts/setup.sh`
rebuilds them (from the npm package js-tiktoken) into the repo's `.cache/tiktoken`, named the way
tiktoken's cache expects. `get_encoding` points tiktoken at that folder just before the first load.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import tiktoken

DEFAULT_ENCODING = "o200k_base"
# Encodings whose files setup builds; tiktoken names its cache file after the sha1 of this URL.
_BLOB_URL = "https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
_BUILT = frozenset({"o200k_base", "cl100k_base"})
# OpenAI's published approximation for chat models (gpt-4, gpt-4o): fixed tokens per message,
# one more when a `name` is set, and three that prime the assistant's reply.
_PER_MESSAGE = 3
_PER_NAME = 1
_REPLY_PRIMING = 3


class TokenizerUnavailable(RuntimeError):
    """The offline tiktoken files are missing; `scripts/setup.sh` builds them."""


def tiktoken_cache_dir() -> Path:
    """`$SQUALL_TIKTOKEN_CACHE`, else `<repo>/.cache/tiktoken` (found relative to this package)."""
    override = os.environ.get("SQUALL_TIKTOKEN_CACHE")
    if override:
        return Path(override)
    return Path(__file__).resolve().parents[2] / ".cache" / "tiktoken"


@functools.lru_cache(maxsize=8)  # Encoding objects are immutable and costly to build (~0.5 s)
def get_encoding(name: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    cache = tiktoken_cache_dir()
    if name in _BUILT:
        expected = cache / hashlib.sha1(_BLOB_URL.format(name=name).encode()).hexdigest()
        if not expected.is_file():
            raise TokenizerUnavailable(
                f"tiktoken file for {name} not found at {expected}: run scripts/setup.sh "
                "(it builds the offline tokenizer files), or set SQUALL_TIKTOKEN_CACHE"
            )
    # Set here, not at import: tiktoken reads it at load time, and importing must not touch the env.
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    return tiktoken.get_encoding(name)


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Tokens in `text`; special-token strings count as plain text (no error, as user data may hold them)."""
    return len(get_encoding(encoding).encode(text, disallowed_special=()))


def _value_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(part, dict) and part.get("type") == "text" for part in value):
        return "".join(str(part.get("text", "")) for part in value)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def count_messages(messages: list[dict[str, Any]], encoding: str = DEFAULT_ENCODING) -> int:
    """Approximate prompt tokens of an OpenAI chat request's `messages` (not counting `tools`).

    Exact for plain text messages on gpt-4o-style models; tool calls and content parts are counted
    as their compact JSON, which is close but not what the provider bills.
    """
    total = _REPLY_PRIMING
    for message in messages:
        total += _PER_MESSAGE
        for key, value in message.items():
            if value is None:
                continue
            total += count_tokens(_value_text(value), encoding)
            if key == "name":
                total += _PER_NAME
    return total
