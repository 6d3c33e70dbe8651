"""Example agents behind ``squall run --agent python:my_agents.MODULE:FUNCTION`` (run from ``examples/``)."""
