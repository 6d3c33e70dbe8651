"""Judges of the agent's calls and what they did to the world: core API accuracy and conversation success, call F1,
the AST checker, failure stages, giving up on impossible goals, argument matching, world-state match; each judge
beside its run-summary reduction (``<judge>_summary.py``)."""
