"""The worker process: its set-up and its task loop.

Set-up: its own session (the parent kills the whole process group); none of the parent's
files (its CSV, its lock, the puzzles, other workers' pipes: every descriptor the parent had
when it started the worker is closed, but the worker's own two pipe ends); standard input
from ``/dev/null`` and standard output and error to the run's log (through a pipe the parent
reads, up to a cap: see :mod:`harness.run.worker.output`), never to the harness's terminal
nor to a channel the parent parses; a subreaper for whatever its backend starts (so a
grandchild that leaves in a new session is still the worker's descendant for the parent to
kill), killed with all of them when the harness ends, even by SIGKILL
(:mod:`harness.run.worker.reaper`).

A solver that forks a copy of the worker (a ``lib:`` library calling ``fork()``): the copy
leaves at once, before it can read a task or answer one, and the solve that forked is ERROR
(:meth:`Children.forked`).
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
from harness.outcome import Outcome
from harness.run.worker import reaper, trees
from harness.run.worker.measure import WorkerState, measure, perf_counter, warm_up
from harness.run.worker.wire import Ready, Warming, WireTask, readable, send

ANSWERED = (Status.SOLVED.value, Status.UNSAT.value)  # as a wire tuple's status
#: A worker sends what it has done at least this often (seconds) while it has tasks.
FLUSH_S = 0.002
FORKED = "the solver started a process in the worker (did it fork?); that process was killed"


def _standard_streams(output: int | None) -> None:
    """Standard input from /dev/null; descriptors 1 and 2 (and so Python's and C's stdout
    and stderr) to ``output``, or to /dev/null."""
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    target = null if output is None else output
    for fd in (1, 2):
        os.dup2(target, fd)
    for fd in {null, target} - {0, 1, 2}:
        os.close(fd)
    for stream in (sys.stdout, sys.stderr):  # line by line, so a killed worker's lines stay
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(line_buffering=True)  # type: ignore[union-attr]


def worker_main(
    tasks: Connection,
    results: int,
    output: int | None,
    inherited: tuple[int, ...],
    clock: Any = None,
    cpu: int | None = None,
) -> None:
    """A worker's whole life: set itself up, then answer batches of tasks until None.

    ``results`` is the descriptor answers are written to (:func:`~wire.send`), ``output``
    the one standard output and error go to (None: nowhere), ``inherited`` the parent's
    descriptors to close. ``clock`` (shared memory, see
    :class:`~harness.run.worker.handle.WorkerHandle`) gets, before each task, how many tasks
    this worker has started and when the latest started, so the parent times the running
    task without a message per task. ``cpu``: the one CPU the worker and whatever it starts
    keep to (None: any).
    """
    _set_up(tasks, results, output, inherited, cpu)
    try:
        _serve(tasks, results, [0.0, 0.0] if clock is None else clock)
    except (EOFError, OSError):  # the parent has gone: nobody wants the answers
        return


def _set_up(
    tasks: Connection,
    results: int,
    output: int | None,
    inherited: tuple[int, ...],
    cpu: int | None = None,
) -> None:
    """Make this process a worker: its own session, standard streams, none of the parent's
    descriptors, dying with the harness, its own signals, and its CPU if it has one."""
    os.setsid()  # own process group, so the parent can kill everything it starts
    if cpu is not None:  # inherited by every process it starts
        os.sched_setaffinity(0, {cpu})
    _standard_streams(output)
    keep = {tasks.fileno(), results, 0, 1, 2}
    for fd in set(inherited) - keep:  # the parent's files and the other workers' pipes
        with contextlib.suppress(OSError):
            os.close(fd)
    # dies with the harness, even by SIGKILL, with all it started: the tasks pipe's write end
    # is the harness's alone (closed above), so it hangs up when the harness ends
    reaper.install(tasks.fileno())
    faulthandler.disable()  # a crash is reported by the parent, not as a traceback dump
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    for signum in (signal.SIGTERM, signal.SIGHUP):  # not the parent's handlers: just die
        signal.signal(signum, signal.SIG_DFL)


class Children:
    """The worker's child processes, to tell a solve that started one (a library that
    forks) from one that did not, read from ``/proc`` after each solve of a backend that
    runs no processes of its own.

    A copy of the worker made by such a fork returns from the solver into this loop: it
    must leave before it touches a pipe (:meth:`leave_if_copy`)."""

    def __init__(self) -> None:
        self.worker = os.getpid()
        try:
            self._fd: int | None = os.open(f"/proc/self/task/{self.worker}/children", os.O_RDONLY)
        except OSError:  # not Linux: forks are not looked for
            self._fd = None
        self._known: bytes | None = None  # the children before the solve; None: read again

    def leave_if_copy(self) -> None:
        """Exit at once, without a word, in a copy of the worker that a solver forked."""
        if os.getpid() != self.worker:
            # At once: no exit handler or buffer of the worker runs in the copy. It stays
            # this program until it ends, killed: :func:`_is_copy` reads either (another
            # program in between, a shell to exit from, say, would hide it).
            os.kill(os.getpid(), signal.SIGKILL)

    def _now(self) -> bytes | None:
        if self._fd is None:
            return None
        try:
            return os.pread(self._fd, 4096, 0)
        except OSError:
            return None

    def before(self) -> None:
        """Note the children before a solve, unless known (see :meth:`forget`)."""
        if self._known is None:
            self._known = self._now()

    def forget(self) -> None:
        """Something that may start or end processes ran (a warm-up, a backend that runs
        processes of its own): read the children again before the next solve."""
        self._known = None

    def forked(self) -> bool:
        """Whether the solve since :meth:`before` left a new child that is a copy of the
        worker (forked, not a program it started); kill and reap each such copy. A program
        it started (a daemon, say) is left to die with the worker, as every process is."""
        now, known = self._now(), self._known
        if now == known:
            return False
        self._known = None  # read again before the next solve
        new = set((now or b"").split()) - set((known or b"").split())
        copies = [int(pid) for pid in new if _is_copy(int(pid))]
        for pid in copies:
            reaper.kill_descendants(pid)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        return bool(copies)


def _is_copy(pid: int) -> bool:
    """Whether the child ``pid`` is a copy of this worker: it runs this worker's program (a
    fork that did not exec), or it has ended as a copy leaves (killed, see
    :meth:`Children.leave_if_copy`)."""
    try:
        return os.readlink(f"/proc/{pid}/exe") == os.readlink("/proc/self/exe")
    except FileNotFoundError:  # it has ended, or is ending: its status tells (not reaped)
        pass
    except OSError:  # another program, which this process may not look into
        return False
    try:
        ended = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
    except ChildProcessError:
        return False
    return (
        ended is not None and ended.si_code == os.CLD_KILLED and ended.si_status == signal.SIGKILL
    )


def _serve(tasks: Connection, results: int, clock: Any) -> None:
    """Answer batches of tasks until None. Answers go back in batches (see
    :mod:`harness.run.worker.wire`): what is done is sent when :data:`FLUSH_S` has passed
    since the last batch, before a warm-up, and before the worker waits for tasks."""
    measure_task, warm = trees.entry_points(measure, warm_up)  # SPEC@REV: another tree's
    state = WorkerState()
    children = Children()
    done: list[Any] = []  # answers not yet sent
    sent_at = perf_counter()
    started = 0
    while True:
        if done and not readable(tasks):  # about to wait for tasks: send what is done
            send(results, done)
            done, sent_at = [], perf_counter()
        batch = tasks.recv()
        if batch is None:
            return
        for wire in batch:
            if (wire[0], wire[1]) not in state.warmed:  # the parent times it apart
                send(results, [*done, Warming()])
                done = []
                failure = warm(wire, state)
                children.leave_if_copy()
                children.forget()
                send(results, [Ready(perf_counter(), failure)])  # the task's clock starts now
            started += 1
            clock[1] = perf_counter()  # the time first: the parent reads it second
            clock[0] = started
            done.append(_answer_task(wire, state, measure_task, children))
            now = perf_counter()
            if now - sent_at >= FLUSH_S:
                send(results, done)
                done, sent_at = [], now


def _answer_task(
    wire: WireTask,
    state: WorkerState,
    measure_task: Callable[..., tuple[Any, ...]],
    children: Children,
) -> tuple[Any, ...]:
    """One task's answer: measured, or ERROR at once when its warm-up failed, or ERROR when
    a backend that runs no processes of its own left one (it forked). A backend whose
    process is gone after a task not answered is warmed up again (untimed) first."""
    key = (wire[0], wire[1])
    failure = state.broken.get(key)
    if failure is not None:
        return Outcome(Status.ERROR, failure).wire()
    own_processes = key[0] in state.processes
    if not own_processes:
        children.before()
    outcome = measure_task(wire, state)
    children.leave_if_copy()
    if own_processes:
        children.forget()
    elif children.forked():
        return (Status.ERROR.value, FORKED, None, None, None, None, None, (), *outcome[8:])
    if outcome[0] not in ANSWERED and getattr(state.cache[key[0]], "stale", 0):
        state.warmed.discard(key)  # its process is gone: restart it untimed
    return outcome
