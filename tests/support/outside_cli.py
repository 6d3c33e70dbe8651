"""A command-line outside agent for the tests: ``python outside_cli.py MODE [PIDFILE]`` reads one squall-agent/1
request on stdin and answers on stdout as MODE says (``json``, ``text``, ``end``), or misbehaves (``hang``: starts
a child and sleeps, both pids written to PIDFILE; ``crash``: exits 3; ``garbage``: bytes that are not UTF-8;
``badjson``: broken JSON; ``shape``: JSON of the wrong shape)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time


def main() -> None:
    mode = sys.argv[1]
    request = json.loads(sys.stdin.read())
    if mode == "json":  # reads the turn's fields: fails on the hello, as a program written before it may
        said = request["messages"][-1]["content"]
        usage = {"requests": 1, "input_tokens": len(said), "output_tokens": 3}
        print(json.dumps({"protocol": "squall-agent/1", "reply": f"turn {request['turn']}: ok", "usage": usage}))
    elif mode == "text":
        print(f"Plain words for turn {request.get('turn')}.")
    elif mode == "end":
        print(json.dumps({"reply": "Goodbye.", "end": True}))
    elif mode == "hang":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
        with open(sys.argv[2], "w") as pids:
            pids.write(f"{os.getpid()} {child.pid}")
        time.sleep(3600)
    elif mode == "crash":
        sys.stderr.write("Traceback: something broke\n")
        sys.exit(3)
    elif mode == "garbage":
        sys.stdout.buffer.write(b"\xff\xfe\x00garbage\x81")
    elif mode == "badjson":
        print('{"reply": "unfinished')
    elif mode == "shape":
        print(json.dumps({"reply": 42, "protocol": "squall-agent/9"}))


if __name__ == "__main__":
    main()
