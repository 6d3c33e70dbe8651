"""``code:MODEL``: a CodeAct-style agent whose programs call the tools, run in a sandboxed child process."""
