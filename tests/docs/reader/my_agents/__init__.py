"""The reader's agents in the docs' ``--agent python:my_agents.support:respond``."""
