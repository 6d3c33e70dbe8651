"""Offline token counting: the rebuilt BPE files give tiktoken's real encodings."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.llm import tokens


@pytest.mark.parametrize(
    ("encoding", "text", "ids"),
    [
        ("o200k_base", "hello world", [24912, 2375]),
        ("o200k_base", "Hello, world!", [13225, 11, 2375, 0]),
        ("cl100k_base", "hello world", [15339, 1917]),
        # The example in OpenAI's cookbook for counting tokens.
        ("cl100k_base", "tiktoken is great!", [83, 1609, 5963, 374, 2294, 0]),
    ],
)
def test_known_token_ids(encoding: str, text: str, ids: list[int]) -> None:
    assert tokens.get_encoding(encoding).encode(text) == ids
    assert tokens.count_tokens(text, encoding) == len(ids)


def test_default_encoding_is_o200k() -> None:
    assert tokens.count_tokens("The quick brown fox jumps over the lazy dog.") == 10
    assert tokens.get_encoding().name == "o200k_base"


def test_special_token_text_counts_as_plain_text() -> None:
    assert tokens.count_tokens("<|endoftext|>") == 7


def test_count_messages_adds_chat_overhead() -> None:
    messages = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "hello world"},
    ]
    # 3 per message + role + content, plus 3 priming the reply.
    assert tokens.count_messages(messages) == (3 + 1 + 6) + (3 + 1 + 2) + 3


def test_count_messages_counts_tool_calls_and_skips_null_content() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}
    with_call = [{"role": "assistant", "content": None, "tool_calls": [call]}]
    assert tokens.count_messages(with_call) > tokens.count_messages([{"role": "assistant"}]) + 5


def test_missing_files_say_to_run_setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SQUALL_TIKTOKEN_CACHE", str(tmp_path))
    tokens.get_encoding.cache_clear()
    try:
        with pytest.raises(tokens.TokenizerUnavailable, match=r"scripts/setup\.sh"):
            tokens.get_encoding("cl100k_base")
    finally:
        tokens.get_encoding.cache_clear()
