"""What judges may know of the agent from its spec string (``EpisodeResult.agent``), without importing the agents."""

from __future__ import annotations

SQL_AGENT_PREFIX = "sql:"
"""``sql:MODEL``: the SQL-writing baseline, which queries the database itself (one ``execute_sql`` tool)."""


def calls_world_functions(agent: str) -> bool:
    """False for an agent that never calls the world's functions (it writes SQL instead): judges of calls (core API
    accuracy, call F1, AST) say n/a for it, never 0; the answer judges score its replies as any agent's."""
    return not agent.startswith(SQL_AGENT_PREFIX)
