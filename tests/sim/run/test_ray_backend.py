"""``--backend ray``: the same scores as in-process, rate limits split so the workers together stay within the
provider's, a kill -9 of the driver resumes to every episode exactly once and leaves no Ray process behind, and bad
input (an unknown backend, Ray not installed) is one clear line with nothing written.

The Ray tests share one local cluster (2 CPUs, bound to 127.0.0.1) per module: starting one takes seconds.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judges.run.run_summary import RunSummary
from sim.config.run_config import RunConfig
from sim.judging.judge_set import judge_names
from sim.llm.admission.decision_log import DecisionLog
from sim.llm.admission.scheduler import EndpointLimits, Scheduler
from sim.run.executors.ray_reaper import MARK_VARIABLE
from sim.run.executors.worker_share import ShareScheduler, split, worker_configs, worker_count
from sim.run.runner import execute
from tests.support.cli import assert_clean_failure, squall, tree
from tests.support.mockllm_server import mock_llm_server
from tests.support.run_process import SLOW_MOCK, lines, squall_process, start_and_wait
from tests.support.virtual_time import EP, FakeEndpoint, VirtualTime, gather, request

HAVE_RAY = importlib.util.find_spec("ray") is not None
needs_ray = pytest.mark.skipif(not HAVE_RAY, reason="ray is not installed (pip install 'squall[ray]')")

CALL = lambda name, args: {"name": name, "arguments": args}  # noqa: E731
# A scripted model that gets the first turn of sh-001 right and declines everything else: mixed, exact scores.
SCRIPTED = {
    "policy": {
        "kind": "script",
        "steps": [{"text": "I cannot help with that."}],
        "by_user": {
            "living room ceiling light": [
                {"tool_calls": [CALL("set_power", {"device_id": "living_ceiling_light", "on": True})]},
                {"tool_calls": [CALL("set_brightness", {"device_id": "living_ceiling_light", "level": 50})]},
                {"text": "Done."},
            ]
        },
    }
}


def config(out: Path, **kw: Any) -> RunConfig:
    return RunConfig.model_validate({"agent": "oracle", "out": out, "run_id": "r", "cache": "off", **kw})


def verdicts(run: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """Every stored score (value, per-turn values, error codes, details) by episode and judge."""
    return {(s["episode_id"], s["judge"]): s for s in map(json.loads, lines(run / "scores.jsonl"))}


def rates(run: RunSummary) -> dict[str, Any]:
    """The summary less what differs between any two runs: timings, and when the run was made."""
    summary = run.as_dict()
    usage = {k: v for k, v in summary["usage"].items() if not k.endswith("_s")}
    identity = {k: v for k, v in (summary.get("identity") or {}).items() if k != "created_at"}
    kept = {k: v for k, v in summary.items() if k not in ("usage", "usage_by_role", "identity")}
    return {**kept, "usage": usage, "identity": identity}


# ---- the rate-limit split (no Ray needed)


def test_limits_are_split_so_the_workers_add_up_to_the_run() -> None:
    cfg = RunConfig(agent="oracle", concurrency=10, endpoint_concurrency=7, tpm=100_000, rpm=500)
    assert split(10, 3) == [4, 3, 3] and split(2, 4) == [1, 1, 0, 0]
    assert worker_count(cfg, 16) == 7 and worker_count(RunConfig(concurrency=2), 16) == 2
    workers = worker_configs(cfg, 3)
    assert [w.concurrency for w in workers] == [4, 3, 3]
    assert [w.endpoint_concurrency for w in workers] == [3, 2, 2]
    assert [w.tpm for w in workers] == [33_334, 33_333, 33_333] and sum(w.rpm or 0 for w in workers) == 500
    assert all(w.share == 1 / 3 and w.config_hash() == cfg.config_hash() for w in workers)
    limits = workers[0].build_scheduler().default
    assert (limits.concurrency, limits.initial, limits.ceiling, limits.tpm) == (3, 4, 4, 33_334)


def test_a_worker_reads_the_providers_global_budgets_as_its_share() -> None:
    sched = worker_configs(RunConfig(agent="oracle", concurrency=4), 4)[0].build_scheduler()
    assert isinstance(sched, ShareScheduler) and sched.share == 0.25
    headers = {"x-ratelimit-limit-tokens": "40000", "x-ratelimit-remaining-tokens": "40000",
               "x-ratelimit-limit-requests": "400", "x-ratelimit-remaining-requests": "400"}  # fmt: skip

    async def one() -> None:
        async with sched.admit(EP, 100, 10) as permit:
            permit.completed(100, 10, headers)

    asyncio.run(one())
    state = sched.state(EP)
    assert (state["tpm"], state["rpm"]) == (10_000, 100)  # a quarter of the global limits each
    assert state["tpm_level"] <= 0.98 * 10_000


@pytest.mark.parametrize("window", [True, False], ids=["sliding-window", "token-bucket"])
@pytest.mark.parametrize("workers", [2, 4])
async def test_workers_sharing_an_endpoint_pace_to_its_limit_together(window: bool, workers: int) -> None:
    """N workers learn the endpoint's TPM from its headers. Each pacing to the whole limit (the naive split) sends
    N times it and draws hundreds of 429s; read as shares, together they pace to it without one."""

    async def drive(schedulers: list[Scheduler]) -> FakeEndpoint:
        endpoint = FakeEndpoint(vt, tpm=30_000, window=window, headers=True, latency_s=2.0)
        for s in schedulers:
            s.clock, s.sleep = vt.clock, vt.sleep
        calls = (request(schedulers[i % workers], endpoint, 800, 200, 200) for i in range(600))
        await vt.run(gather(*calls))
        return endpoint

    vt = VirtualTime()
    limits = EndpointLimits(initial=20 // workers)  # the run's 20 slots, split
    naive = await drive([Scheduler(limits) for _ in range(workers)])
    assert naive.rejected > 20  # each paces from the global reports as if alone (hundreds when it never raised)
    vt = VirtualTime()
    shared = await drive([ShareScheduler(1 / workers, limits, {}, max_concurrency=100, log=DecisionLog())
                          for _ in range(workers)])  # fmt: skip
    assert shared.rejected == 0
    assert shared.tokens / vt.now * 60 >= 0.9 * 30_000


# ---- bad input (no Ray needed)


def test_an_unknown_backend_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    code, _, err = squall("run", "--agent", "oracle", "--backend", "spark", "--out", str(tmp_path / "runs"), "-q")
    assert_clean_failure(code, err, "--backend", "'inprocess' or 'ray'")
    assert tree(tmp_path) == []


def test_ray_not_installed_is_one_line_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails, as where it is not installed
    code, _, err = squall("run", "--agent", "oracle", "--backend", "ray", "--out", str(tmp_path / "runs"), "-q")
    assert_clean_failure(code, err, "--backend", "ray is not installed", "squall[ray]")
    assert tree(tmp_path) == []


def test_the_inprocess_backend_never_imports_ray() -> None:
    code = "import sys, sim.cli.app, sim.run.runner; sys.exit('ray' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


# ---- on a local Ray cluster


def cluster_pids(mark_prefix: str) -> list[int]:
    """Processes whose environment carries a Ray cluster mark starting with ``mark_prefix``."""
    needle = f"{MARK_VARIABLE}={mark_prefix}".encode()
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if any(v.startswith(needle) for v in (entry / "environ").read_bytes().split(b"\0")):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def titles(pids: list[int]) -> list[str]:
    out = []
    for pid in pids:
        try:
            out.append(Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace"))
        except OSError:
            continue
    return out


def listening(pids: list[int]) -> set[str]:
    """Local addresses (hex, as /proc/net/tcp* writes them) of the TCP sockets these processes listen on."""
    inodes = set()
    for pid in pids:
        for fd in Path(f"/proc/{pid}/fd").glob("*"):
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            cols = row.split()
            if cols[3] == "0A" and cols[9] in inodes:  # 0A: LISTEN
                found.add(cols[1].rsplit(":", 1)[0])
    return found


LOOPBACK_HEX = {"0100007F", "00000000000000000000000001000000", "0000000000000000FFFF00000100007F"}


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A local cluster for the module, started as ``squall run`` starts one (reaper included); yields its mark."""
    if not HAVE_RAY:
        pytest.skip("ray is not installed (pip install 'squall[ray]')")
    from sim.run.executors.ray_cluster import LocalCluster

    local = LocalCluster(2)
    try:
        started = time.monotonic()
        assert local.start()
        print(f"\nlocal Ray cluster started in {time.monotonic() - started:.1f}s")
        yield local.mark
    finally:
        local.stop()
    assert cluster_pids(local.mark) == []


@needs_ray
@pytest.mark.slow
def test_the_local_cluster_listens_on_loopback_only(cluster: str) -> None:
    pids = cluster_pids(cluster)
    assert any("raylet" in t for t in titles(pids))
    addresses = listening(pids)
    assert addresses and addresses <= LOOPBACK_HEX, addresses


@needs_ray
@pytest.mark.slow
async def test_oracle_scores_match_inprocess(cluster: str, tmp_path: Path) -> None:
    _, local = await execute(config(tmp_path / "local", trials=3, stressors=["outage"]))
    started = time.monotonic()
    _, remote = await execute(config(tmp_path / "ray", trials=3, stressors=["outage"], backend="ray"))
    print(f"\nray: {remote['episodes']} oracle episodes in {time.monotonic() - started:.2f}s (workers included)")
    assert verdicts(tmp_path / "ray" / "r") == verdicts(tmp_path / "local" / "r")
    assert rates(remote) == rates(local) and remote["episodes"] == 30


@needs_ray
@pytest.mark.slow
async def test_native_agent_over_http_scores_match_inprocess(cluster: str, tmp_path: Path) -> None:
    with mock_llm_server(SCRIPTED) as srv:
        agent = f"openai-chat:mock-model@{srv.url}"
        _, local = await execute(config(tmp_path / "local", agent=agent, trials=2))
        _, remote = await execute(config(tmp_path / "ray", agent=agent, trials=2, backend="ray", ray_workers=2))
    assert verdicts(tmp_path / "ray" / "r") == verdicts(tmp_path / "local" / "r")
    assert rates(remote) == rates(local)
    assert 0 < remote["core_api_accuracy"] < 1 and remote["usage"]["requests"] > 0


@needs_ray
@pytest.mark.slow
async def test_an_outside_agent_over_mcp_scores_the_same_on_ray(cluster: str, tmp_path: Path) -> None:
    """Each Ray worker opens its own MCP hub on its own loopback, and imports the ``python:`` agent itself."""
    agent = "python:tests.support.outside_agents:lister"
    _, local = await execute(config(tmp_path / "local", agent=agent, limit=4, stressors=["drift"]))
    _, remote = await execute(config(tmp_path / "ray", agent=agent, limit=4, stressors=["drift"], backend="ray"))
    assert verdicts(tmp_path / "ray" / "r") == verdicts(tmp_path / "local" / "r")
    assert rates(remote) == rates(local) and remote["failed_episodes"] == 0
    calls = [e for line in lines(tmp_path / "ray" / "r" / "episodes.jsonl") for e in json.loads(line)["events"]]
    assert any(e["kind"] == "tool_call" for e in calls)


@needs_ray
@pytest.mark.slow
def test_an_unusable_agent_fails_in_the_workers_before_the_run_folder(cluster: str, tmp_path: Path) -> None:
    # The workers resolve the agent's model when they open their sessions (here: a provider whose extra is not
    # installed); the driver reports their one line, and kills them.
    args = ("run", "--agent", "anthropic:claude-3-5-haiku-latest", "--backend", "ray", "--out", str(tmp_path), "-q")
    code, _, err = squall(*args)
    assert_clean_failure(code, err, "--agent", "anthropic")
    assert tree(tmp_path) == []
    workers_gone(cluster)


def workers_gone(mark: str, within_s: float = 20.0) -> None:
    """Wait until no worker actor process of the cluster is left (ray.kill is asynchronous)."""
    deadline = time.monotonic() + within_s
    while any(t.startswith("ray::EpisodeWorker") for t in titles(cluster_pids(mark))):
        assert time.monotonic() < deadline, titles(cluster_pids(mark))
        time.sleep(0.1)


@needs_ray
@pytest.mark.slow
async def test_a_cancelled_run_kills_its_workers(cluster: str, tmp_path: Path) -> None:
    episodes = tmp_path / "r" / "episodes.jsonl"
    with mock_llm_server(SLOW_MOCK) as srv:
        cfg = config(tmp_path, agent=f"openai-chat:mock-model@{srv.url}", trials=2, concurrency=2, backend="ray")
        run = asyncio.create_task(execute(cfg))
        while len(lines(episodes)) < 2:
            assert not run.done()
            await asyncio.sleep(0.05)
        assert any(t.startswith("ray::EpisodeWorker") for t in titles(cluster_pids(cluster)))
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
    await asyncio.to_thread(workers_gone, cluster)
    assert json.loads((tmp_path / "r" / "summary.json").read_text())["episodes"] == len(lines(episodes))


@needs_ray
@pytest.mark.slow
def test_sigkill_of_the_driver_resumes_every_episode_once_and_leaves_no_ray_process(tmp_path: Path) -> None:
    episodes = tmp_path / "killed" / "episodes.jsonl"
    with mock_llm_server(SLOW_MOCK) as srv:
        args = ["run", "--agent", f"openai-chat:mock-model@{srv.url}", "--trials", "2", "--out", str(tmp_path),
                "--run-id", "killed", "-q", "--backend", "ray"]  # fmt: skip
        proc = start_and_wait([*args, "--concurrency", "2"], episodes, at_least=3)
        assert any("raylet" in t for t in titles(cluster_pids(f"{proc.pid}-")))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 30  # the reaper kills them as soon as the driver's pipe closes
        while left := cluster_pids(f"{proc.pid}-"):
            assert time.monotonic() < deadline, titles(left)
            time.sleep(0.1)
        done_before = len(lines(episodes))
        planned = json.loads((tmp_path / "killed" / "manifest.json").read_text())["planned_episodes"]
        assert 3 <= done_before < planned

        resumed = squall_process([*args, "--resume", "--concurrency", "8"])  # how fast may change on resume
        _, stderr = resumed.communicate(timeout=300)
        assert resumed.returncode == 0, stderr.decode()
        assert cluster_pids(f"{resumed.pid}-") == []

    ids = Counter(json.loads(line)["episode_id"] for line in lines(episodes))
    assert len(ids) == planned and set(ids.values()) == {1}
    scores = Counter(
        (s["episode_id"], s["judge"]) for s in map(json.loads, lines(tmp_path / "killed" / "scores.jsonl"))
    )
    assert len(scores) == len(judge_names()) * planned and set(scores.values()) == {1}
    assert json.loads((tmp_path / "killed" / "summary.json").read_text())["episodes"] == planned
