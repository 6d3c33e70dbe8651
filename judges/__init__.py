"""Scorers over stored episodes."""
