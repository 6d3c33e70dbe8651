"""Scorers over stored episodes: pure functions of (task, trace) -> Score, and how their verdicts reduce over a run.

Where things are, by what a reader looks for:
- ``calls/``: the agent's calls and the world they left (core API accuracy, call F1, AST, failure stage, decline,
  argument matching, state match);
- ``answers/``: the agent's replies (completion, answer facts, answer by meaning, clarification);
- ``errors/``: replies after a failure (error handling) and the raters' calibration;
- ``bfcl/``: BFCL's own verdicts;
- ``run/``: the run summary and the run's identity;
- ``common/``: trace views, Score building, statistics, the Reduction protocol;
- ``names.py``: every judge's name; ``registry.py``: every judge, one line each.
A judge lives in ``<package>/<judge>.py`` with its reduction beside it (``<judge>_summary.py``). Imports run
down: run -> registry -> bfcl -> calls | answers | errors -> common -> names (``pyproject.toml``'s contracts).
"""
