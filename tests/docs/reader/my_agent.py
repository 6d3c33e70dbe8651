"""The reader's program in the docs' ``--agent 'command:"python my_agent.py --fast"'``: one squall-agent/1 request
on stdin, one reply on stdout. It calls no tool: the docs test needs an agent that answers, not one that scores."""

import json
import sys


def main() -> None:
    request = json.load(sys.stdin)
    said = request["messages"][-1]["content"] if request["messages"] else ""
    print(json.dumps({"reply": f"You said: {said}", "usage": {"requests": 0}}))


if __name__ == "__main__":
    main()
