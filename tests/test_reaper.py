"""A worker's reaper: what its backend starts, in any session, dies with the harness."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import psutil
import pytest

from harness.run.worker import reaper

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux prctl")


@contextlib.contextmanager
def worker_like(marker: str) -> Iterator[tuple[int, int]]:
    """A forked process set up as a worker of this one, which leaves ``sleep MARKER``
    orphaned in a new session (its parent exits) and waits; yields its pid once the sleep
    runs, with the write end of its lifeline (closing it is the harness's end), and kills
    it at the end."""
    ready_r, ready_w = os.pipe()
    lifeline, alive = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker: never returns into pytest
        try:
            os.setsid()
            os.close(alive)
            reaper.install(lifeline)
            # a process that starts the sleep in a new session and exits: the sleep is orphaned
            start = (
                f"import subprocess as s; s.Popen(['sleep', '{marker}'], start_new_session=True)"
            )
            subprocess.run([sys.executable, "-c", start], check=True)
            for signum in (signal.SIGTERM, signal.SIGUSR2, signal.SIGHUP, signal.SIGINT):
                signal.signal(signum, signal.SIG_IGN)
            os.write(ready_w, b"x")
            while True:
                time.sleep(3600)
        finally:
            os._exit(0)
    os.close(ready_w)
    os.close(lifeline)
    try:
        assert b"x" == os.read(ready_r, 1)
        yield pid, alive
    finally:
        os.close(ready_r)
        with contextlib.suppress(OSError):
            os.close(alive)
        for p in [*reaper.descendants(pid), pid]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def sleeps(marker: str) -> list[psutil.Process]:
    """The ``sleep MARKER`` processes that run (zombies aside)."""
    return [
        proc
        for proc in psutil.process_iter(["cmdline", "status"])
        if proc.info["cmdline"] == ["sleep", marker] and proc.info["status"] != psutil.STATUS_ZOMBIE
    ]


def marker() -> str:
    """A sleep duration no other process uses."""
    return f"{2000 + os.getpid() % 1000}.{time.time_ns() % 10**6:06d}"


def test_an_orphan_in_a_new_session_stays_the_workers_and_the_watcher_is_left_out() -> None:
    """descendants(): the orphaned sleep (reparented to the worker), never the watcher."""
    name = marker()
    with worker_like(name) as (pid, _):
        found = [psutil.Process(p).cmdline()[0] for p in reaper.descendants(pid)]
        watchers = [c.name() for c in psutil.Process(pid).children()]
        assert (["sleep"], ["harness-reaper", "sleep"]) == (found, sorted(watchers))


def test_the_harness_s_end_kills_every_descendant_then_the_worker() -> None:
    """The lifeline hangs up (the harness has ended): the sleep and the worker are gone, even
    though the worker ignores every signal it can."""
    name = marker()
    with worker_like(name) as (pid, alive):
        orphan = sleeps(name)
        os.close(alive)
        _, status = os.waitpid(pid, 0)  # the worker has ended
        _, left = psutil.wait_procs(orphan, timeout=30)
        assert (1, [], signal.SIGKILL) == (len(orphan), left, os.WTERMSIG(status))
