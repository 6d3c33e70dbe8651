"""How a documented command is run offline and small: the rules the docs test applies, each a pure function.

- Models: every ``openai-chat:NAME`` without ``@`` (a hosted model), every ``openai-chat:NAME@http://127.0.0.1:8000/v1``
  (the docs' stand-in for the reader's own server) and the embedded ``local`` model become the mock endpoint's
  model; a model behind a named endpoint (``@vllm``) keeps the name and the endpoint's URL becomes the mock's. A
  model at any other URL is a server the docs start themselves and stays.
- The reader's agent service (``--agent http:URL`` or a bare URL) is the test's stand-in service.
- Sizes: ``squall run`` plays at most 2 tasks once (``--limit 2 --trials 1`` unless the page asks for fewer, or
  gives a value it means to be refused), 1 task with ``--stressor-mode isolated`` (each scenario is an episode of its
  own); ``squall bench`` at most 20 episodes, 10 in flight, 0.02 s per call, a hang given up after 2 s, and only
  its ``squall`` arm unless the command names arms; ``squall worlds draft-tasks`` drafts 2.
- Ports: a fixed ``--port N`` becomes a free port, and ``127.0.0.1:N`` with it wherever the page's commands or
  files name it (two runs of the suite at once must not meet on one port).
- ``squall run`` rates replies after a failure only where the command asks for a rater (``--error-judge`` or
  ``--judge-model``): the default embedding rater loads torch, seconds per process (its own tests cover it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

MOCK_MODEL = "mock-model"
READERS_SERVER = "http://127.0.0.1:8000/v1"
MODEL_OPTIONS = frozenset({"--agent", "--model", "--judge-model", "--user-model", "--describe-model"})
RUN_CAPS: Mapping[str, int | float] = {"--limit": 2, "--trials": 1}
BENCH_CAPS: Mapping[str, int | float] = {
    "--episodes": 20, "--concurrency": 10, "--latency": 0.02, "--jitter": 0.0, "--request-timeout": 2.0
}  # fmt: skip
_OPENAI_CHAT = re.compile(r"openai-chat:([\w.\-/]+)(?:@([^\s,\"']+))?")


def swap_models(text: str, mock_url: str) -> str:
    """Models in a command's word or a shown file, swapped for the mock endpoint's (the module's first rule)."""

    def one(match: re.Match[str]) -> str:
        target = match.group(2)
        if target is None or target == READERS_SERVER:
            return f"openai-chat:{MOCK_MODEL}@{mock_url}"
        if "://" not in target:  # a named endpoint: its base_url is swapped below
            return f"openai-chat:{MOCK_MODEL}@{target}"
        return match.group(0)

    return _OPENAI_CHAT.sub(one, text).replace(READERS_SERVER, mock_url)


def rewrite(argv: list[str], mock_url: str, agent_url: str) -> list[str]:
    """A squall command line (without the program) as the docs test runs it."""
    words = [swap_models(word, mock_url) for word in argv]
    for i, word in enumerate(words[:-1]):
        if word not in MODEL_OPTIONS:
            continue
        value = words[i + 1]
        if value in ("local", "text:local"):
            words[i + 1] = value.replace("local", f"openai-chat:{MOCK_MODEL}@{mock_url}")
        elif word == "--agent" and re.match(r"(http:)?https?://", value):
            words[i + 1] = agent_url
    return _scaled(words)


def fixed_ports(words: list[str]) -> set[int]:
    """The ports a command serves on by number (``--port 0`` asks for a free one)."""
    given = option_value(words, "--port")
    return {int(given)} if given and given.isdigit() and int(given) else set()


def remap_ports(text: str, ports: Mapping[int, int]) -> str:
    """``text`` with each fixed port the page serves on replaced by the free port it was given."""
    for fixed, free in ports.items():
        text = re.sub(rf"(?<=127\.0\.0\.1:){fixed}\b", str(free), text)
    return text


def _scaled(words: list[str]) -> list[str]:
    if words[:1] == ["run"]:
        isolated = option_value(words, "--stressor-mode") == "isolated"
        words = _capped(words, {**RUN_CAPS, "--limit": 1} if isolated else RUN_CAPS)
        if option_value(words, "--error-judge") is None and option_value(words, "--judge-model") is None:
            words = set_option(words, "--error-judge", "off")
    elif words[:1] == ["bench"]:
        words = _capped(words, BENCH_CAPS)
        if option_value(words, "--arms") is None:
            words = set_option(words, "--arms", "squall")
    elif words[:2] == ["worlds", "draft-tasks"]:
        words = set_option(words, "--n", "2")
    return words


def _capped(words: list[str], caps: Mapping[str, int | float]) -> list[str]:
    """Each option at most its cap (added where absent); a value that is not of the cap's type is left to squall to
    refuse, as the page means it to be."""
    for option, cap in caps.items():
        given = option_value(words, option)
        kind = int if isinstance(cap, int) else float
        try:
            value = cap if given is None else min(kind(given), cap)
        except ValueError:
            continue
        words = set_option(words, option, str(value))
    return words


def option_value(words: list[str], option: str) -> str | None:
    for i, word in enumerate(words):
        if word == option and i + 1 < len(words):
            return words[i + 1]
        if word.startswith(option + "="):
            return word.split("=", 1)[1]
    return None


def set_option(words: list[str], option: str, value: str) -> list[str]:
    """``words`` with ``option`` given ``value``: replaced where given (``--opt V`` or ``--opt=V``), else appended."""
    out: list[str] = []
    skip = False
    for i, word in enumerate(words):
        if skip:
            skip = False
            continue
        if word == option and i + 1 < len(words):
            skip = True
            continue
        if word.startswith(option + "="):
            continue
        out.append(word)
    return [*out, option, value]
