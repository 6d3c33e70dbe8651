"""The ``squall`` command line. ``sim.cli:main`` is the console script's entry point (installs made before the
CLI became a package name it too)."""

from sim.cli.app import main, run_cli

__all__ = ["main", "run_cli"]
