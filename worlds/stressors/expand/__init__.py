"""Toolkit expansion: related-but-different tools beside a world's own (the ``expand`` stressor type's pool).

``templates`` writes neighbours from any world's specs; ``build`` filters and ranks them offline with sentence
embeddings into a shipped catalog (``data/expand/<world>.json``); ``toolkit`` picks one episode's closed world;
``answers`` replies to calls of synthetic tools; ``model_written`` asks a model for more neighbours."""
