"""One writer per run folder: a second resume (or a ``squall score``) beside a running writer is refused, naming
the holder; the lock goes with the holder however it exits."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from sim.store.run_lock import RunLock, RunLocked, holder_pid
from sim.store.run_store import RunStore, StoreError
from tests.support.mockllm_server import mock_llm_server
from tests.support.run_process import SLOW_MOCK, lines, run_args, squall_process, start_and_wait

pytestmark = pytest.mark.reliability  # issue 25's suite

HOLD = "import os, sys, time; from pathlib import Path; from sim.store.run_lock import RunLock; "
HOLD += "lock = RunLock(Path(sys.argv[1])); print('locked', flush=True); time.sleep(120)"


def _hold_elsewhere(root: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(root)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def test_a_held_folder_is_refused_naming_the_holder_and_freed_by_kill_9(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "r", {"config_hash": "h", "config": {}})
    store.close()
    holder = _hold_elsewhere(tmp_path / "r")
    try:
        with pytest.raises(StoreError, match=rf"r is being written by process {holder.pid}"):
            RunStore.resume(tmp_path / "r", "h")
        with pytest.raises(StoreError, match="is being written"):
            RunStore.open_to_write(tmp_path / "r")
        RunStore.open_existing(tmp_path / "r").manifest()  # readers never wait for the writer
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
    RunStore.resume(tmp_path / "r", "h").close()  # the kernel dropped the dead holder's lock
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["manifest.json"]  # no lock file left behind


def test_the_lock_is_released_by_close_and_within_one_process(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "r", {"config_hash": "h", "config": {}})
    with pytest.raises(StoreError, match=f"process {os.getpid()}"):
        RunStore.resume(tmp_path / "r", "h")  # another descriptor of this very process conflicts too
    store.close()
    again = RunStore.resume(tmp_path / "r", "h")
    again.close()
    again.close()  # idempotent


def test_a_failed_resume_releases_what_it_took(tmp_path: Path) -> None:
    RunStore.create(tmp_path / "r", {"config_hash": "h", "config": {}}).close()
    with pytest.raises(StoreError, match="config_hash"):
        RunStore.resume(tmp_path / "r", "other")
    RunLock(tmp_path / "r").release()  # not left held by the refused resume


def test_holder_pid_reads_the_kernel_table(tmp_path: Path) -> None:
    table = tmp_path / "locks"
    table.write_text(
        "1: POSIX  ADVISORY  WRITE 11 fd:01:77 0 EOF\n"
        "2: FLOCK  ADVISORY  WRITE 4242 fd:01:77 0 EOF\n"
        "2: -> FLOCK  ADVISORY  WRITE 99 fd:01:77 0 EOF\n"
    )
    assert holder_pid(os.makedev(0xFD, 1), 77, table) == 4242
    assert holder_pid(os.makedev(0xFD, 1), 78, table) is None
    assert holder_pid(os.makedev(0xFD, 1), 77, tmp_path / "absent") is None


def test_locked_is_an_error_type_of_its_own() -> None:
    assert issubclass(RunLocked, Exception) and not issubclass(RunLocked, StoreError)


@pytest.mark.slow
def test_two_resumes_at_once_the_second_refused_the_first_completes_once(tmp_path: Path) -> None:
    episodes = tmp_path / "twice" / "episodes.jsonl"
    with mock_llm_server(SLOW_MOCK) as srv:
        args = run_args(srv.url, tmp_path, "twice")
        first = start_and_wait(args, episodes, at_least=1)
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
        resuming = start_and_wait([*args, "--resume"], episodes, at_least=len(lines(episodes)) + 1)
        # Paused while the second starts: on a loaded machine it could otherwise finish the run before the second
        # process gets as far as the lock. A stopped process keeps its lock.
        os.kill(resuming.pid, signal.SIGSTOP)
        try:
            second = squall_process([*args, "--resume"])
            _, err = second.communicate(timeout=120)
        finally:
            os.kill(resuming.pid, signal.SIGCONT)
        assert second.returncode == 2, err.decode()
        message = err.decode().strip()
        assert len(message.splitlines()) == 1 and f"process {resuming.pid}" in message, message
        _, err = resuming.communicate(timeout=300)
        assert resuming.returncode == 0, err.decode()
    planned = json.loads((tmp_path / "twice" / "manifest.json").read_text())["planned_episodes"]
    ids = Counter(json.loads(line)["episode_id"] for line in lines(episodes))
    assert len(ids) == planned and set(ids.values()) == {1}
    summary = json.loads((tmp_path / "twice" / "summary.json").read_text())
    assert summary["episodes"] == summary["planned_episodes"] == planned
