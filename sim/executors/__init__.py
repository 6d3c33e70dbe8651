"""Where episodes run: the driver hands an executor the specs to run and takes back the traces.

``base.Executor`` is the protocol; ``inprocess.InProcessExecutor`` runs them on this process's event loop.
A Ray executor (episodes in Ray workers, traces sent back) implements the same protocol; the driver stays the
single writer, judge and summariser for every backend.
"""

from sim.executors.base import EpisodeRunner, Executor, ResultSink
from sim.executors.cost_ceiling import CostCeiling
from sim.executors.inprocess import InProcessExecutor

__all__ = ["CostCeiling", "EpisodeRunner", "Executor", "InProcessExecutor", "ResultSink"]
