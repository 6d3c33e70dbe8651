"""A minimal agent behind ``command:``: from ``examples/``,

    ../.venv/bin/squall run --world smart_home --limit 2 --agent 'command:"python my_agent.py --fast"'

squall starts the program once per conversation turn, writes one ``squall-agent/1`` request as JSON on its stdin and
reads the reply from its stdout: JSON (``{"reply": "...", "usage": {...}, "end": false}``) or plain text. Before
the run it sends the handshake, ``{"protocol": "squall-agent/1", "kind": "hello"}``: answer it (any reply will do)
and exit 0. The standard library only: any Python 3 runs it. The episode's tools are at ``request["mcp_url"]``
(MCP, streamable HTTP); this one calls none.
"""

import argparse
import json
import sys


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="answer in fewer words")
    options = parser.parse_args()
    request = json.load(sys.stdin)
    if request.get("kind") == "hello":
        print(json.dumps({"protocol": "squall-agent/1", "kind": "hello", "agent": "my_agent.py"}))
        return
    asked = request["messages"][-1]["content"]  # the user's latest message
    reply = "I cannot do that yet." if options.fast else f"You asked: {asked!r}. I have no tools yet, so I cannot."
    print(json.dumps({"protocol": "squall-agent/1", "reply": reply, "usage": {"requests": 0}}))


if __name__ == "__main__":
    main()
