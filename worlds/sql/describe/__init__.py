"""What an agent reads of a generated function: model-written descriptions checked against the code, leak
checks, and obfuscated names with descriptions that give no table or column away."""
