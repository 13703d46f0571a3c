"""A worker's processes die with the harness, even when the harness is SIGKILLed, even those
that left in a new session (``setsid``), whatever signals the worker's solver ignores.

:func:`install` makes the worker a subreaper (Linux ``PR_SET_CHILD_SUBREAPER``): a process its
backend starts stays its descendant when its own parent exits, whatever its session. Then it
forks a watcher, a child of the worker that holds nothing but the worker's end of a pipe whose
other end only the harness holds (the tasks pipe): when the harness ends, by any means, that
pipe hangs up, and the watcher stops the worker (SIGSTOP, which nothing can ignore), kills
every process below it, then SIGKILLs the worker and the process group it leads. The
watcher only waits on the pipe (``poll`` for its hang-up, never reading), so it costs nothing
while the harness lives; it dies with the worker (``PR_SET_PDEATHSIG``). It is named
:data:`WATCHER_NAME`, and :func:`descendants` leaves it out, so its memory (a copy of the
worker's) is never counted as the worker's. Where no watcher can be forked, the worker itself
dies with the harness (``PR_SET_PDEATHSIG``), its descendants then out of reach.

Elsewhere than Linux, :func:`install` does nothing: the harness's own kills must do.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys

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


def die_with_parent(signum: int = signal.SIGKILL) -> bool:
    """Have Linux send ``signum`` to this process when the thread that started it ends."""
    return _prctl(_PR_SET_PDEATHSIG, signum)


#: The bytes of a page of memory, as /proc counts resident memory.
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
#: How often the harness looks at a busy process's memory (:func:`rss_mib`), seconds.
MEMORY_POLL_S = 0.05


def rss_mib(pid: int) -> float:
    """The resident memory now of ``pid`` (all its threads) and of every process below it,
    MiB, from /proc (0 for one that has gone)."""
    total = 0.0
    for each in (pid, *descendants(pid)):
        try:
            with open(f"/proc/{each}/statm") as f:
                total += int(f.read().split()[1]) * PAGE_BYTES / 2**20
        except (OSError, ValueError, IndexError):
            pass
    return total


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


def _watch(worker: int, lifeline: int) -> None:
    """The watcher's life: wait for ``lifeline`` to hang up (the harness has ended), then
    stop the worker, kill its descendants and its process group. Ends with the worker."""
    try:
        die_with_parent()
        if os.getppid() != worker:  # the worker ended before the request took effect
            return
        _prctl(_PR_SET_NAME, WATCHER_NAME)
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # not the harness's
            signal.signal(signum, signal.SIG_DFL)
        os.closerange(0, lifeline)  # nothing of the worker's: no pipe end kept open here
        os.closerange(lifeline + 1, os.sysconf("SC_OPEN_MAX"))
        poller = select.poll()
        poller.register(lifeline, 0)  # no data wanted: poll reports the hang-up alone
        while not poller.poll():
            pass
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(worker, signal.SIGSTOP)  # it starts nothing more while its own are killed
        kill_descendants(worker)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(worker, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(worker, signal.SIGKILL)  # the group it leads, if any: this watcher too
    finally:  # its work is done: it ends as its group did, running nothing of the worker's
        os.kill(os.getpid(), signal.SIGKILL)


def install(lifeline: int) -> None:
    """Make this process (a worker, just started by the harness, in its own session) die
    when ``lifeline`` hangs up, with everything it starts, in whatever session (see the
    module's docstring). ``lifeline`` is the read end of a pipe whose write ends only the
    harness holds."""
    if not sys.platform.startswith("linux"):
        return
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    worker = os.getpid()
    try:
        watcher = os.fork()
    except OSError:  # no watcher: the worker dies with the harness, alone
        die_with_parent()
        return
    if watcher == 0:
        _watch(worker, lifeline)
