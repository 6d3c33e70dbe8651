"""One module per complexity type; each defines ``STRESSOR``, a ``ScenarioStressor`` subclass."""
