"""World code every world shares: argument checking, tool errors, tool books and copy-on-write tables."""
