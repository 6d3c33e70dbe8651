"""One arm of ``sim.bench.big_world``, run by path in its own process against a squall tree on PYTHONPATH (this
one or an older revision), so it uses only what every revision has: ``read_openapi``, ``write_api_world`` and
``load_simulated_folder``. Prints one JSON object.

    python big_world_arm.py import SPEC OUT    # seconds (wall, CPU) and peak memory of the import, folder size
    python big_world_arm.py load OUT           # seconds (wall, CPU) to load the folder and list its tools
"""

from __future__ import annotations

import json
import resource
import sys
import time
import tomllib
from pathlib import Path


def import_arm(spec: Path, out: Path) -> dict[str, float]:
    from worlds.simulated.import_folder import write_api_world
    from worlds.simulated.openapi_import import read_openapi

    started, cpu = time.perf_counter(), time.process_time()
    result = read_openapi(spec, out.name)
    write_api_world(result.api, None, out, replace=True, report=result.report())
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    stored = json.loads((out / "operations.json").read_text(encoding="utf-8"))
    largest = max(len(json.dumps(operation)) for operation in stored["operations"])
    return {
        "import_s": seconds,
        "import_cpu_s": cpu,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "folder_bytes": sum(path.stat().st_size for path in out.rglob("*") if path.is_file()),
        "largest_operation_bytes": largest,
        "operations": len(stored["operations"]),
        "skipped": len(result.skipped),
    }


def load_arm(out: Path) -> dict[str, float]:
    from worlds.simulated.folder import load_simulated_folder

    started, cpu = time.perf_counter(), time.process_time()
    config = tomllib.loads((out / "world.toml").read_text(encoding="utf-8"))
    pack = load_simulated_folder(out, config)
    tools = pack.tool_specs()
    return {"load_s": time.perf_counter() - started, "load_cpu_s": time.process_time() - cpu, "tools": len(tools)}


if __name__ == "__main__":
    mode, *paths = sys.argv[1:]
    found = import_arm(Path(paths[0]), Path(paths[1])) if mode == "import" else load_arm(Path(paths[0]))
    print(json.dumps(found))
