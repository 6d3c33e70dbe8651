"""LLM access: gateway, provider error classification, token counting, the embedded local model."""
