"""Worlds generated from text-to-SQL sets (Spider, BIRD): each query becomes read-only functions with verified
solution paths. Pipeline: formats -> literals/split (sqlglot) -> verify (execution) -> world/folder.

Packages, by what a reader looks for (imports run down this list; ``pyproject.toml``'s contract checks it):
- ``ingest/``: a question set to a world folder (the importer, the folder format, quality filters, augmentation);
  ``serve/``: a world over HTTP (the REST server, its client world, the gold's token) — independent of each other;
- ``describe/``: what the agent reads of a function: model-written descriptions, leak checks, obfuscated names;
- ``styles/``: the SEL and SLOT toolkits and their gold chains;
- ``query/``: a query to functions: literals as parameters, the query in words, splitting, verification;
- ``engine/``: the database (read-only SQLite, BIRD's column docs), the source formats, the value types and the world.
``sample/`` is the shipped sample world (``--world sql_sample``), built from all of them.
"""
