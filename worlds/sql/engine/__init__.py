"""The database and the world: read-only SQLite access, BIRD's column documentation, the official source formats,
the value types of SQL-derived worlds, and the world whose tools run generated queries."""
