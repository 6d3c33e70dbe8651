"""Where episodes run: the driver hands an executor the specs to run and takes back the traces.

``base.Executor`` is the protocol; ``inprocess.InProcessExecutor`` runs them on this process's event loop;
``ray_executor.RayExecutor`` (``--backend ray``) on Ray worker actors, traces sent back as JSON. The driver stays the
single writer, judge and summariser for every backend. The Ray modules are not imported here: importing Ray costs
start-up time that the in-process backend never pays.
"""

from sim.run.executors.base import EpisodeRunner, Executor, ResultSink
from sim.run.executors.cost_ceiling import CostCeiling
from sim.run.executors.inprocess import InProcessExecutor

__all__ = ["CostCeiling", "EpisodeRunner", "Executor", "InProcessExecutor", "ResultSink"]
