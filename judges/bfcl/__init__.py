"""BFCL's own verdicts inside squall: the AST checker of single-turn categories and the multi-turn state and
response checks, each beside its reduction."""
