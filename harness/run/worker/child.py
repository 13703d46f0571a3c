"""The worker process: its set-up and its task loop.

Set-up: its own session (the parent kills the whole process group), SIGKILLed by Linux
when the parent dies, a subreaper for whatever its backend starts (so a grandchild that
leaves in a new session is still the worker's descendant for the parent to kill), and its
stdout and stderr sent to the run's log, never to the harness's terminal or pipe.
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import signal
import sys
from multiprocessing.connection import Connection
from typing import Any

from backends.base import Status
from harness.run.worker.measure import WorkerState, measure, perf_counter, warm_up
from harness.run.worker.wire import Outcome, Ready, Warming, readable

ANSWERED = (Status.SOLVED.value, Status.UNSAT.value)  # as a wire tuple's status
#: A worker sends what it has done at least this often (seconds) while it has tasks.
FLUSH_S = 0.002
_PR_SET_PDEATHSIG = 1  # prctl options, <linux/prctl.h>
_PR_SET_CHILD_SUBREAPER = 36


def _prctl(option: int, value: int) -> None:
    """Linux's prctl(2); nothing elsewhere (not Linux: the pipes' EOF and kills must do)."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(option, value)


def _die_with_parent(parent: int) -> None:
    """Have Linux SIGKILL this worker when the parent dies, even by SIGKILL (which leaves
    it no chance to stop its workers): an orphan would go on solving, or hang, unseen."""
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def _redirect_output(log: str) -> None:
    """Send file descriptors 1 and 2 (and so Python's and C's stdout and stderr) to ``log``,
    appended; to /dev/null when it cannot be opened (or is a symlink)."""
    try:
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o644)
    except OSError:
        fd = os.open(os.devnull, os.O_WRONLY)
    for target in (1, 2):
        os.dup2(fd, target)
    os.close(fd)
    for stream in (sys.stdout, sys.stderr):  # line by line, so a killed worker's lines stay
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(line_buffering=True)  # type: ignore[union-attr]


def worker_main(
    tasks: Connection,
    results: Connection,
    parent: int,
    inherited: tuple[int, ...],
    log: str = os.devnull,
    clock: Any = None,
) -> None:
    """A worker's whole life: set itself up, then answer batches of tasks until None.

    Answers go back in batches (see :mod:`harness.run.worker.wire`): what is done is sent when
    :data:`FLUSH_S` has passed since the last batch, before a warm-up, and before the
    worker waits for tasks. ``clock`` (shared memory, see
    :class:`~harness.run.worker.handle.WorkerHandle`) gets, before each task, how many tasks
    this worker has started and when the latest started, so the parent times the running
    task without a message per task.
    """
    os.setsid()  # own process group, so the parent can kill everything it starts
    _die_with_parent(parent)
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    _redirect_output(log)
    for fd in inherited:  # the parent's pipe ends: with them open, no worker would see EOF
        with contextlib.suppress(OSError):
            os.close(fd)
    faulthandler.disable()  # a crash is reported by the parent, not as a traceback dump
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    for signum in (signal.SIGTERM, signal.SIGHUP):  # not the parent's handlers: just die
        signal.signal(signum, signal.SIG_DFL)
    clock = [0.0, 0.0] if clock is None else clock
    state = WorkerState()
    send = results.send
    done: list[Any] = []  # answers not yet sent
    sent_at = perf_counter()
    started = 0
    try:
        while True:
            if done and not readable(tasks):  # about to wait for tasks: send what is done
                send(done)
                done, sent_at = [], perf_counter()
            batch = tasks.recv()
            if batch is None:
                return
            for wire in batch:
                key = (wire[0], wire[1])
                if key not in state.warmed:  # the parent times it apart
                    done.append(Warming())
                    send(done)
                    failure = warm_up(wire, state)
                    send([Ready(perf_counter(), failure)])  # the task's clock starts now
                    done = []
                started += 1
                clock[1] = now = perf_counter()  # the time first: the parent reads it second
                clock[0] = started
                failure = state.broken.get(key)
                if failure is not None:
                    done.append(Outcome(Status.ERROR, failure).wire())
                else:
                    outcome = measure(wire, state)
                    done.append(outcome)
                    now = perf_counter()
                    if outcome[0] not in ANSWERED and getattr(state.cache[key[0]], "stale", 0):
                        state.warmed.discard(key)  # its process is gone: restart it untimed
                if now - sent_at >= FLUSH_S:
                    send(done)
                    done, sent_at = [], now
    except (EOFError, OSError):  # the parent has gone: nobody wants the answers
        return
