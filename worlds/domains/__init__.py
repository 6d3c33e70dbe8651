"""Domains shipped with squall."""
