"""The Ray cluster a run's workers live on: an existing one (``--ray-address``), or a local one started for the run.

A local cluster is bound to 127.0.0.1 (left to itself Ray advertises and listens on the machine's own address) and
shut down when the run ends. Its processes carry a mark in their environment and a reaper process watches the
driver: a kill -9 of the driver leaves no Ray process behind (``ray_reaper``). Ray is imported lazily here, and by
``ray_executor``, which only ``--backend ray`` loads: the CLI's start-up and the in-process backend never pay for it.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import os
import secrets
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path

from sim.config.run_config import RunConfig
from sim.run.executors.ray_reaper import MARK_VARIABLE

LOOPBACK = "127.0.0.1"
OBJECT_STORE_BYTES = 256 * 2**20
"""Specs and traces travel inline as JSON strings, not through the object store: the default (30% of memory) would
only reserve shared memory nobody uses."""


@dataclass(frozen=True)
class Cluster:
    """A connected cluster: its address, its CPUs, and whether it is on this machine (its workers see our files)."""

    address: str
    cpus: int
    local: bool


def require_ray(config: RunConfig) -> None:
    """``--backend ray`` without Ray installed: one clear error, before anything is started or written."""
    try:
        found = importlib.util.find_spec("ray") is not None
    except (ImportError, ValueError):  # ValueError: a module set to None (how tests hide a package)
        found = False
    if not found:
        raise config.problem("backend", "ray is not installed; install the extra: pip install 'squall[ray]'")


@asynccontextmanager
async def ray_cluster(config: RunConfig) -> AsyncIterator[Cluster]:
    """Connect to the cluster at ``config.ray_address``, or start a local one (CPUs: ``--ray-workers``, else this
    machine's); disconnect (and stop the local one) on exit. A cluster this process is already connected to (a
    test's, a notebook's) is used as it is and left running. Failures are ConfigErrors naming the option."""
    import ray

    if ray.is_initialized():
        yield _describe(local=_is_loopback())
        return
    if config.ray_address is None:
        async with _local_cluster(config) as cluster:
            yield cluster
        return
    try:
        await asyncio.to_thread(ray.init, address=config.ray_address, log_to_driver=False, logging_level=logging.ERROR)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise config.problem("ray_address", f"cannot connect to the Ray cluster: {exc}") from exc
    try:
        yield _describe(local=False)
    finally:
        await asyncio.to_thread(ray.shutdown)


@asynccontextmanager
async def _local_cluster(config: RunConfig) -> AsyncIterator[Cluster]:
    local = LocalCluster(config.ray_workers)
    try:
        if not await asyncio.to_thread(local.start):
            raise config.problem(
                "backend",
                "the local Ray cluster would not bind to 127.0.0.1 (this Ray version ignored "
                "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0); start one yourself and pass --ray-address",
            )
        yield _describe(local=True)
    finally:
        await asyncio.to_thread(local.stop)


class LocalCluster:
    """A Ray cluster on this machine bound to 127.0.0.1, with a reaper for its processes. ``start`` and ``stop``
    block for seconds (callers on an event loop run them in a thread)."""

    def __init__(self, num_cpus: int | None) -> None:
        self.num_cpus = num_cpus or os.cpu_count() or 1
        self.mark = f"{os.getpid()}-{secrets.token_hex(8)}"
        """Every process of the cluster has ``MARK_VARIABLE=mark`` in its environment (the driver's pid first)."""
        self._reaper: subprocess.Popen[bytes] | None = None

    def start(self) -> bool:
        """Start the reaper, then the cluster. False (and no cluster) when Ray would bind elsewhere."""
        import ray
        from ray._private import ray_constants

        self._reaper = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("ray_reaper.py")), self.mark],
            stdin=subprocess.PIPE,
            start_new_session=True,  # a Ctrl-C on the terminal must not stop it before it reaps
        )
        # Left to itself Ray turns 127.0.0.1 into the machine's address. With clusters "disabled" (its switch for
        # laptops) a node's address is the loopback one: the processes ray.init starts read the variable, this one
        # the constant Ray set at import. Both are restored after; the cluster's processes keep their copy.
        local_only = {
            "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
            "RAY_USAGE_STATS_ENABLED": "0",
            MARK_VARIABLE: self.mark,
        }
        enabled = ray_constants.ENABLE_RAY_CLUSTER
        with _environment(local_only):
            ray_constants.ENABLE_RAY_CLUSTER = False
            try:
                ray.init(
                    address="local",
                    num_cpus=self.num_cpus,
                    include_dashboard=False,
                    _node_ip_address=LOOPBACK,
                    object_store_memory=OBJECT_STORE_BYTES,
                    log_to_driver=False,
                    logging_level=logging.ERROR,
                )
            finally:
                ray_constants.ENABLE_RAY_CLUSTER = enabled
        if _is_loopback():
            return True
        ray.shutdown()
        return False

    def stop(self) -> None:
        """Shut the cluster down; the reaper then kills whatever is left of it and exits. Idempotent."""
        import ray

        ray.shutdown()
        if self._reaper is not None and self._reaper.stdin is not None:
            self._reaper.stdin.close()  # end of file: the same signal a kill -9 of this process gives it
            self._reaper.wait()
            self._reaper = None


def _is_loopback() -> bool:
    import ray

    return bool(ray.util.get_node_ip_address() == LOOPBACK)


def _describe(local: bool) -> Cluster:
    import ray

    address = ray.get_runtime_context().gcs_address
    return Cluster(address, int(ray.cluster_resources().get("CPU", 0)), local)


@contextmanager
def _environment(values: Mapping[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
