"""The text-protocol parser with thousands of tool names: this tree's ``parse_step`` against an earlier revision's.

Replies: 500 ``foo_i(x)`` patterns (calls of unknown functions in prose and on their own lines, one known call
among them), a JSON call, a ReAct action with a misspelt name, and a plain answer; 2,000 tool names. Both versions
parse every reply; the script checks they give the same steps and prints the time of each and the ratio.

    .venv/bin/python scripts/bench_parser.py [--rev 6817072] [--names 2000] [--patterns 500]
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Collection
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim.agents.text_parse import parse_step  # noqa: E402

BEFORE = "6817072"
"""The last revision before the parser kept a lookup table per name set (its fuzzy match ran per candidate)."""
Parse = Callable[[str, Collection[str]], Any]


def tool_names(count: int) -> list[str]:
    verbs = ("get", "set", "list", "create", "delete", "update", "find", "cancel")
    return [f"{verbs[i % len(verbs)]}_item_{i:04d}" for i in range(count)]


def replies(names: list[str], patterns: int) -> list[str]:
    prose = "\n".join(
        f"Maybe foo_{i}(x) would help, or call foo_{i}(x)." if i % 2 else f"foo_{i}(x)" for i in range(patterns)
    )
    return [
        prose,
        f"{prose}\n{names[17]}(x=1)",
        f'{{"name": "{names[3]}", "arguments": {{"x": 1}}}}',
        "Thought: look it up\nAction: get_itme_0008\nAction Input: {}",
        "The lights are off now.",
    ]


def load_before(rev: str) -> Parse:
    """``parse_step`` as it was at ``rev``: its text_calls and text_parse loaded from git under other names."""
    folder = Path(tempfile.mkdtemp(prefix="parser_before_"))
    modules: dict[str, ModuleType] = {}
    for name in ("text_calls", "text_parse"):
        source = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{rev}:sim/agents/{name}.py"], capture_output=True, text=True, check=True
        ).stdout
        source = source.replace("from sim.agents.text_calls import", "from _before_text_calls import")
        path = folder / f"_before_{name}.py"
        path.write_text(source, encoding="utf-8")
        spec = importlib.util.spec_from_file_location(f"_before_{name}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[f"_before_{name}"] = module
        spec.loader.exec_module(module)
        modules[name] = module
    parse: Parse = modules["text_parse"].parse_step
    return parse


def timed(parse: Parse, texts: list[str], names: list[str], repeat: int) -> tuple[float, list[Any]]:
    started = time.perf_counter()
    for _ in range(repeat):
        out = [parse(text, names) for text in texts]
    return (time.perf_counter() - started) / repeat, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default=BEFORE, help="the revision to compare against")
    parser.add_argument("--names", type=int, default=2000)
    parser.add_argument("--patterns", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3, help="runs of this tree's parser (averaged)")
    args = parser.parse_args()
    names = tool_names(args.names)
    texts = replies(names, args.patterns)
    before, old = timed(load_before(args.rev), texts, names, 1)
    after, new = timed(parse_step, texts, names, args.repeat)
    same = [a.model_dump() == b.model_dump() for a, b in zip(old, new, strict=True)]
    print(f"{args.names} names, {len(texts)} replies ({args.patterns} foo(x) patterns in the first two)")
    print(f"before ({args.rev}): {before * 1000:9.1f} ms")
    print(f"after  (this tree): {after * 1000:9.1f} ms")
    print(f"ratio: {before / after:.0f}x faster; same steps: {all(same)} {same}")
    if not all(same):
        sys.exit(1)


if __name__ == "__main__":
    main()
