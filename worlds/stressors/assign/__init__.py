"""Optional model-driven scenario assignment (``squall stressors assign``); the shipped table needs no model."""

from worlds.stressors.assign.pipeline import AssignReport, assign, write_rows
from worlds.stressors.assign.validate import Rejected, check_draft

__all__ = ["AssignReport", "Rejected", "assign", "check_draft", "write_rows"]
