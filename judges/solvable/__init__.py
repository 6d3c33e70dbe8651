"""Solvability judged like StableToolBench: a judge model says whether the final answer solves the query."""
