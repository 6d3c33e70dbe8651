"""A local worker process (``--workers N``): ``python -m sim.run.executors.worker_process``, started by the driver.

Protocol, over the process's stdin and stdout, one line per message unless said (JSON never holds a raw newline):

    driver -> worker   first line: {"config": <WorkerConfig JSON>, "log_root": <folder or null>,
                                    "score_set": <the run's score set, or null>}
                       then  "P <id> <EpisodeSpec JSON>"  (play)  ...  and finally "C" (close cleanly)
    worker -> driver   "READY" once its session is open, or "FAIL <message JSON>" (exit 2: bad input)
                       then per episode, with a score set (the worker judges):
                             "J <id> <n> <sha> <EpisodeDone JSON>"  followed by the lines the store holds:
                             the line of the toolkit the episode names (sha, or "-": none, its tools inline),
                             the episode's line, then its n scores' lines (``EpisodeWorker.play_judged``)
                       without one (the driver judges):  "R <id> <EpisodeResult JSON>"
                       or  "E <id> <message JSON>" (a harness bug)

The worker never writes the run store: the driver stays its one writer and appends the lines as they came, so
what the worker plays counts only once the driver has stored it. Its stdin is its lifeline: end of input without
"C" means the driver died (kill -9 included), and the worker exits at once, dropping what it had in flight —
``--resume`` plays it again.
As a second line of defence it asks the kernel for SIGKILL when its parent dies (Linux).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import dataclasses
import json
import os
import signal
import sys
import traceback

from sim.config.errors import ConfigError
from sim.run.event_loop import run
from sim.run.executors.episode_worker import EpisodeWorker

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


async def serve(protocol_out: int) -> int:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 30)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    # A StreamWriter over the pipe (the stdlib's own recipe: FlowControlMixin) for drain() at the end.
    out = os.fdopen(protocol_out, "wb")
    transport, flow = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, out)
    writer = asyncio.StreamWriter(transport, flow, None, loop)

    def send(line: str, *records: bytes) -> None:
        writer.write(b"".join([line.encode(), b"\n", *records]))  # one write: nothing comes between them

    first = await reader.readline()
    if not first:
        return 1
    hello = json.loads(first)
    worker = EpisodeWorker(hello["config"], hello["log_root"], hello.get("score_set"))
    try:
        await worker.open()
    except (ConfigError, ValueError) as exc:
        send("FAIL " + json.dumps(str(exc)))
        return 2
    send("READY")
    playing: set[asyncio.Task[None]] = set()

    async def play(episode: str, spec_json: str) -> None:
        try:
            if hello.get("score_set") is None:
                send(f"R {episode} {await worker.play(spec_json)}")
            else:
                judged = await worker.play_judged(spec_json)
                done = json.dumps(dataclasses.asdict(judged.done))
                toolkit = judged.toolkit
                sha, lines = ("-", ()) if toolkit is None else (toolkit.sha, (toolkit.line,))
                send(
                    f"J {episode} {len(judged.score_lines)} {sha} {done}",
                    *lines,
                    judged.episode_line,
                    *judged.score_lines,
                )
        except Exception as exc:  # a harness bug: the driver reports it and stops the run
            send(f"E {episode} {json.dumps(''.join(traceback.format_exception(exc))[-4000:])}")

    while line := await reader.readline():
        if line.startswith(b"P "):
            _, episode, spec_json = line.decode().rstrip("\n").split(" ", 2)
            task = asyncio.create_task(play(episode, spec_json))
            playing.add(task)
            task.add_done_callback(playing.discard)
        elif line.startswith(b"C"):
            await asyncio.gather(*playing)
            await worker.close()
            await writer.drain()  # every trace reaches the driver before the loop closes
            writer.close()
            return 0
    os._exit(1)  # the driver is gone: nothing here can be stored any more


def main() -> None:
    _die_with_parent()
    # stdout is the protocol's alone: anything else printed (a library's warning) goes to stderr.
    protocol_out = os.dup(1)
    os.dup2(2, 1)
    sys.exit(run(serve(protocol_out)))


if __name__ == "__main__":
    main()
