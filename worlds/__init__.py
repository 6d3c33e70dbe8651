"""Executable worlds, their domains and stressors."""
