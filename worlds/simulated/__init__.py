"""Worlds of imported APIs (OpenAPI documents, ToolBench tool files) whose responses a model simulates."""
