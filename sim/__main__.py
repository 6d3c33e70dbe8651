"""``python -m sim`` is the ``squall`` command."""

from sim.cli import main

main()
