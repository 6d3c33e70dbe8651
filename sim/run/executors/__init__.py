"""Where episodes run: the driver hands an executor the specs to run and takes back the finished episodes.

``base.Executor`` is the protocol; ``inprocess.InProcessExecutor`` runs them on this process's event loop (traces, the
driver judges them); ``local_workers.LocalWorkersExecutor`` (``--workers N``) in worker processes and
``ray_executor.RayExecutor`` (``--backend ray``) on Ray worker actors, which judge them there and send the store's
lines back (``episode_worker``). The driver stays the single writer and summariser for every backend. The Ray
modules are not imported here: importing Ray costs start-up time that the in-process backend never pays.
"""

from sim.run.executors.base import EpisodeDone, EpisodeRunner, Executor, Finished, JudgedEpisode, ResultSink
from sim.run.executors.cost_ceiling import CostCeiling
from sim.run.executors.inprocess import InProcessExecutor

__all__ = [
    "CostCeiling",
    "EpisodeDone",
    "EpisodeRunner",
    "Executor",
    "Finished",
    "InProcessExecutor",
    "JudgedEpisode",
    "ResultSink",
]
