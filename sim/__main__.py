"""``python -m sim`` is the ``squall`` command."""

from sim.cli.main import main

main()
