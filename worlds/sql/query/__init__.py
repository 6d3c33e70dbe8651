"""A query to functions: its literals as parameters, the query in words, a nested query split in two, and the
verification that every solution path reproduces the SQL's own result."""
