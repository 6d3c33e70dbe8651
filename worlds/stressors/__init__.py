"""Stressors: composable, seeded perturbations of what the agent reads, observes and is scored on.

The complexity scenarios are data (``data/*.jsonl``), one stressor class per complexity type
(``types/``); ``catalog`` turns ``--stressors`` items into per-episode instances."""

from worlds.stressors.catalog import StressorSelectionError, build_stressors, builtin_scenarios, select

__all__ = ["StressorSelectionError", "build_stressors", "builtin_scenarios", "select"]
