"""Worlds generated from text-to-SQL sets (Spider, BIRD): each query becomes read-only functions with verified
solution paths. Pipeline: formats -> literals/split (sqlglot) -> verify (execution) -> world/folder."""
