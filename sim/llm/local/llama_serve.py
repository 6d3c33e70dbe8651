"""The embedded model's server process: `python -m sim.llm.local.llama_serve --model PATH --port N`.

xllamacpp runs llama.cpp's C++ server on threads of the Python process that creates it. It has no
stop call short of the object's destructor, which waits for the inference loop; its constructor
holds the GIL while the model loads; and it takes over SIGINT (a Ctrl-C then stops its inference
loop instead of raising KeyboardInterrupt, and the process lives on). So it never runs inside
squall: `LocalModelServer` starts this module as a child, which puts SIGINT and SIGTERM back to
their default action (the kernel ends the process at once, mid-request or not) and exits when its
stdin reaches EOF, i.e. when the parent closes the pipe or dies.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m sim.llm.local.llama_serve", description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="path of the GGUF file")
    parser.add_argument("--alias", required=True, help="the model name clients send")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--parallel", type=int, default=1, help="slots: requests decoded together")
    parser.add_argument("--ctx-per-slot", type=int, default=4096, help="context tokens of each slot")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--cache-ram-mib", type=int, default=256, help="prompt states kept in RAM for reuse")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse(argv)
    import xllamacpp  # a 100 MB extension: loaded in this child only

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.model_alias = {args.alias}
    params.hostnames = [args.host]
    params.port = args.port
    params.n_parallel = args.parallel
    params.n_ctx = args.ctx_per_slot * args.parallel  # llama.cpp splits n_ctx evenly between the slots
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    # Slots swapped to another conversation park their prompt state here, to restore it when the conversation
    # comes back. llama.cpp's default cap, 8 GiB, reads as a leak: resident memory grew 512 -> 1166 MB in 300 requests.
    params.cache_ram_mib = args.cache_ram_mib
    params.ui = False  # no web UI on the port
    params.offline = True  # never reach for a model hub
    try:
        server = xllamacpp.Server(params)
    except RuntimeError as exc:  # the reason is in llama.cpp's log lines above, on stderr
        print(f"llama_serve: {exc}", file=sys.stderr, flush=True)
        return 1
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, signal.SIG_DFL)  # llama.cpp's SIGINT handler would keep the process alive
    print(f"llama_serve: listening on {server.listening_address}", file=sys.stderr, flush=True)
    while sys.stdin.buffer.read(4096):  # the HTTP server runs on llama.cpp's own threads meanwhile
        pass
    os._exit(0)  # not the destructor: it would wait for requests in flight


if __name__ == "__main__":
    sys.exit(main())
