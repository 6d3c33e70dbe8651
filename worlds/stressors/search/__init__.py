"""Tool search over large collections: the index (``index``) behind the ``search`` stressor type."""
