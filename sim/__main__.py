"""``python -m sim`` is the ``squall`` command."""

from sim.cli.app import main

main()
