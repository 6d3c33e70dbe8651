"""Direct invocation calibrated on a Spider-format question set: each SQL style imported with the default filters,
``direct:oracle`` and ``direct:null`` run on it, their call F1 (intent, slot) and completion printed, with the SEL
toolkit size per question.

    PYTHONPATH=. .venv/bin/python scripts/direct_calibration.py ../shared/data/spider OUT
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from sim.config.run_config import RunConfig
from sim.run.runner import execute
from worlds.sql.ingest.folder import write_world
from worlds.sql.ingest.importer import ImportOptions, import_world


async def main(spider: Path, out: Path) -> None:
    for style in ("per_question", "sel", "slot"):
        world = import_world("spider", spider / "database", spider / "dev.json", ImportOptions(world="w", style=style))
        folder = write_world(world, out / style / "world")
        report = world.report
        print(f"{style}: {report.kept} kept, {report.functions} functions, toolkit_mean {report.toolkit_mean}")
        for agent in ("direct:oracle", "direct:null"):
            run_id = agent.replace(":", "-")
            config = RunConfig.model_validate(
                {"out": out / style, "run_id": run_id, "world": str(folder), "agent": agent}
            )
            _, summary = await execute(config)
            f1 = summary["call_f1"]
            print(
                f"  {agent}: {summary['episodes']} episodes, {summary['failed_episodes']} failed, call F1 intent "
                f"{f1['intent']['f1']} slot {f1['slot']['f1']}, completion {summary['completion']}"
            )


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2])))
