"""A SQL world over HTTP: the REST server (``squall serve``), its client world (``--world http://...``), the
query-string schema and OpenAPI document, and the token that guards the gold."""
