"""A worker's processes die with the harness, even when the harness is SIGKILLed and even
those that left in a new session (``setsid``).

:func:`install` makes the worker a subreaper (Linux ``PR_SET_CHILD_SUBREAPER``): a process its
backend starts stays its descendant when its own parent exits, whatever its session. It asks
Linux for :data:`DEATH_SIGNAL` when the harness dies (``PR_SET_PDEATHSIG``), and that signal
makes the worker kill every descendant before it exits: once the worker is gone, they would be
orphans of another process, out of reach. The worker's Python handler runs only when the
interpreter is free, which a C extension may not leave it for a long time; so the signal is also
written, by the interpreter's own C handler, to a pipe that a watcher reads: a child of the
worker, forked at its start, that kills the worker's descendants and then the worker. The
watcher exits when the worker does (end of file on the pipe), and dies with the worker's
process group. It is named :data:`WATCHER_NAME`, and :func:`descendants` leaves it out, so its
memory (a copy of the worker's) is never counted as the worker's.

Elsewhere than Linux, :func:`install` does nothing: the harness's own kills must do.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from types import FrameType

#: What Linux sends the worker when the harness dies.
DEATH_SIGNAL = signal.SIGUSR2
#: The watcher's process name (``/proc/PID/comm``), by which :func:`descendants` skips it.
WATCHER_NAME = b"harness-reaper"
_PR_SET_PDEATHSIG = 1  # prctl options, <linux/prctl.h>
_PR_SET_NAME = 15
_PR_SET_CHILD_SUBREAPER = 36
#: Most rounds of kills: a round finds the processes started while the last one killed.
_ROUNDS = 100


def _prctl(option: int, value: int | bytes) -> bool:
    """Linux's prctl(2); False where it is missing or refused."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(option, value) == 0
    except (OSError, AttributeError):
        return False


def descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (children of any of its threads, and theirs), a worker's
    watcher left out, from ``/proc``: one file a process, where psutil would scan every
    process."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            threads = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for tid in threads:
            try:
                with open(f"/proc/{parent}/task/{tid}/children") as f:
                    kids = [int(k) for k in f.read().split()]
            except (OSError, ValueError):
                continue
            kids = [k for k in kids if not _is_watcher(k)]
            found += kids
            todo += kids
    return found


def _is_watcher(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/comm", "rb") as f:
            return f.read().rstrip(b"\n") == WATCHER_NAME
    except OSError:
        return False


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that is not a zombie (a zombie needs no kill)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rpartition(b")")[2].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def kill_descendants(pid: int) -> None:
    """SIGKILL every process below ``pid`` until none runs (a process that starts another
    while the kills go on is found in the next round)."""
    for _ in range(_ROUNDS):
        alive = [p for p in descendants(pid) if _running(p)]
        if not alive:
            return
        for p in alive:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(p, signal.SIGKILL)


def _on_harness_death(signum: int, frame: FrameType | None) -> None:
    kill_descendants(os.getpid())
    os._exit(1)


def _watch(wakeups: int) -> None:
    """The watcher's life: wait for the worker's :data:`DEATH_SIGNAL` (its number, written to
    ``wakeups``), then kill the worker's descendants and the worker; end with the worker."""
    try:
        worker = os.getppid()
        _prctl(_PR_SET_NAME, WATCHER_NAME)
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # not the harness's
            signal.signal(signum, signal.SIG_DFL)
        os.closerange(0, wakeups)  # nothing of the worker's: no pipe end kept open here
        os.closerange(wakeups + 1, os.sysconf("SC_OPEN_MAX"))
        while True:
            data = os.read(wakeups, 64)
            if not data:  # the worker has exited
                return
            if int(DEATH_SIGNAL) in data:
                kill_descendants(worker)
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(worker, signal.SIGKILL)
                return
    finally:
        os._exit(0)


def install(parent: int) -> None:
    """Make this process (a worker, just started by ``parent``, in its own session) kill
    everything it starts, in whatever session, when ``parent`` dies, then exit."""
    if not sys.platform.startswith("linux"):
        return
    if not (_prctl(_PR_SET_CHILD_SUBREAPER, 1) and _prctl(_PR_SET_PDEATHSIG, DEATH_SIGNAL)):
        return
    wakeups, wake = os.pipe()
    os.set_blocking(wake, False)
    try:
        if os.fork() == 0:
            _watch(wakeups)
    except OSError:  # no watcher: the handler alone
        pass
    os.close(wakeups)
    signal.signal(DEATH_SIGNAL, _on_harness_death)
    signal.set_wakeup_fd(wake, warn_on_full_buffer=False)
    if os.getppid() != parent:  # the parent died before the request took effect
        _on_harness_death(DEATH_SIGNAL, None)
