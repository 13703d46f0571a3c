"""The worker process: its set-up and its task loop.

Set-up: its own session (the parent kills the whole process group), a subreaper for
whatever its backend starts (so a grandchild that leaves in a new session is still the
worker's descendant for the parent to kill), killed with all of them when the parent dies,
even by SIGKILL (:mod:`harness.run.worker.reaper`), and its stdout and stderr sent to the
run's log, never to the harness's terminal or pipe.
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import signal
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from backends.base import Status
from harness.results import conditions
from harness.run.worker import reaper, trees
from harness.run.worker.measure import WorkerState, measure, perf_counter, warm_up
from harness.run.worker.wire import Outcome, Ready, Warming, WireTask, readable

ANSWERED = (Status.SOLVED.value, Status.UNSAT.value)  # as a wire tuple's status
#: A worker sends what it has done at least this often (seconds) while it has tasks.
FLUSH_S = 0.002


def _redirect_output(log: str) -> None:
    """Send file descriptors 1 and 2 (and so Python's and C's stdout and stderr) to ``log``,
    appended; to /dev/null when it cannot be opened."""
    try:
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
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

    ``clock`` (shared memory, see :class:`~harness.run.worker.handle.WorkerHandle`) gets,
    before each task, how many tasks this worker has started and when the latest started,
    so the parent times the running task without a message per task.
    """
    _set_up(parent, inherited, log)
    try:
        _serve(tasks, results, [0.0, 0.0] if clock is None else clock)
    except (EOFError, OSError):  # the parent has gone: nobody wants the answers
        return


def _set_up(parent: int, inherited: tuple[int, ...], log: str) -> None:
    """Make this process a worker: its own session, dying with ``parent``, a subreaper,
    output to ``log``, none of the parent's pipe ends (``inherited``), its own signals."""
    os.setsid()  # own process group, so the parent can kill everything it starts
    reaper.install(parent)  # dies with the parent, even by SIGKILL, with all it started
    _redirect_output(log)
    for fd in inherited:  # the parent's pipe ends: with them open, no worker would see EOF
        with contextlib.suppress(OSError):
            os.close(fd)
    faulthandler.disable()  # a crash is reported by the parent, not as a traceback dump
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    for signum in (signal.SIGTERM, signal.SIGHUP):  # not the parent's handlers: just die
        signal.signal(signum, signal.SIG_DFL)


def _serve(tasks: Connection, results: Connection, clock: Any) -> None:
    """Answer batches of tasks until None. Answers go back in batches (see
    :mod:`harness.run.worker.wire`): what is done is sent when :data:`FLUSH_S` has passed
    since the last batch, before a warm-up, and before the worker waits for tasks. Between
    tasks, every few seconds, the run's conditions are sampled
    (:mod:`harness.results.conditions`)."""
    measure_task, warm = trees.entry_points(measure, warm_up)  # SPEC@REV: another tree's
    probe, probe_due = conditions.sampler(), 0.0
    state = WorkerState()
    send = results.send
    done: list[Any] = []  # answers not yet sent
    sent_at = perf_counter()
    started = 0
    while True:
        if done and not readable(tasks):  # about to wait for tasks: send what is done
            send(done)
            done, sent_at = [], perf_counter()
        batch = tasks.recv()
        if batch is None:
            return
        for wire in batch:
            if (wire[0], wire[1]) not in state.warmed:  # the parent times it apart
                send([*done, Warming()])
                done = []
                failure = warm(wire, state)
                send([Ready(perf_counter(), failure)])  # the task's clock starts now
            started += 1
            clock[1] = perf_counter()  # the time first: the parent reads it second
            clock[0] = started
            done.append(_answer_task(wire, state, measure_task))
            now = perf_counter()
            if now >= probe_due:
                probe_due = probe(now)
            if now - sent_at >= FLUSH_S:
                send(done)
                done, sent_at = [], now


def _answer_task(
    wire: WireTask, state: WorkerState, measure_task: Callable[..., tuple[Any, ...]]
) -> tuple[Any, ...]:
    """One task's answer: measured, or ERROR at once when its warm-up failed. A backend
    whose process is gone after a task not answered is warmed up again (untimed) first."""
    key = (wire[0], wire[1])
    failure = state.broken.get(key)
    if failure is not None:
        return Outcome(Status.ERROR, failure).wire()
    outcome = measure_task(wire, state)
    if outcome[0] not in ANSWERED and getattr(state.cache[key[0]], "stale", 0):
        state.warmed.discard(key)  # its process is gone: restart it untimed
    return outcome
