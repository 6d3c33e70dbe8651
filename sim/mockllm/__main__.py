"""`python -m sim.mockllm --config FILE [--host 127.0.0.1] [--port 0] [--port-file PATH] [--max-lifetime S]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sim.mockllm.config import EchoPolicy, MockConfig, MockConfigError, load_mock_config
from sim.mockllm.server import run_server


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m sim.mockllm", description="Mock OpenAI-compatible LLM server.")
    parser.add_argument("--config", type=Path, help="JSON or TOML MockConfig file (default: echo policy)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port to bind; 0 picks a free one (default 0)")
    parser.add_argument("--port-file", type=Path, help="write the bound port here once listening")
    parser.add_argument("--max-lifetime", type=float, help="exit by itself after this many seconds")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        config = load_mock_config(args.config) if args.config else MockConfig(policy=EchoPolicy())
    except MockConfigError as e:
        print(f"mockllm: bad config:\n{e}", file=sys.stderr)
        return 2
    try:
        run_server(config, args.host, args.port, args.port_file, args.max_lifetime)
    except OSError as e:  # e.g. the port is taken
        print(f"mockllm: cannot serve on {args.host}:{args.port}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
