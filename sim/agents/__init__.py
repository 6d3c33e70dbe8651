"""Adapters for agents under test, and the text protocol (ReAct-style) for models without native tool calling."""
