"""The parent's handle on one worker process: start it, time its head task, sample its
memory, and stop or kill it with everything it started.

A worker is a subreaper (:mod:`harness.run.worker.child`), so every process its backend starts,
even one that left in a new session (``os.setsid``) and whose parent exited, stays its
descendant: the parent lists them from ``/proc`` and kills them with the worker. Their
memory counts as the worker's.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections import deque
from multiprocessing.connection import wait
from typing import Any

from harness.outcome import Outcome
from harness.run.worker.child import worker_main
from harness.run.worker.output import Log
from harness.run.worker.reaper import MEMORY_POLL_S, descendants, rss_mib
from harness.run.worker.wire import Reader, Task

#: Seconds between SIGTERM and SIGKILL when a worker is stopped.
GRACE_S = 0.3
#: The parent kills a solve this long after its timeout (see :func:`kill_grace`).
KILL_GRACE_MAX_S = 0.5
#: The least time a worker is given to build and warm up a backend (imports, tables, a
#: solver's start) before a task, apart from the task's own timeout: the run's timeout, when
#: that is longer.
WARMUP_TIMEOUT_S = 10.0
#: Seconds of solving the parent keeps queued at each worker (see :mod:`harness.run.worker.pool`).
QUEUE_AHEAD_S = 0.01
#: Tasks shorter than this on average are collected by polling.
QUICK_S = 0.002


def open_fds() -> list[int]:
    """This process's open file descriptors (from ``/proc``; elsewhere, every number that
    may be one)."""
    try:
        return [int(fd) for fd in os.listdir("/proc/self/fd")]
    except OSError:
        return list(range(3, min(os.sysconf("SC_OPEN_MAX"), 4096)))


def kill_grace(timeout: float) -> float:
    """How long after ``timeout`` the parent kills a solve: 0.1 s + 10 %, at most 0.5 s.

    A backend that watches its ``time_limit`` stops by itself within it and its row keeps
    its counters; one that cannot (a C extension) is killed, and its row has none. Either
    way the row is TIMEOUT, and the kill comes well within ``timeout`` + 1 s.
    """
    return min(KILL_GRACE_MAX_S, 0.1 + 0.1 * timeout)


def describe_death(exitcode: int | None) -> str:
    if exitcode is None:
        return "worker vanished"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"worker died: killed by {name}"
    return f"worker died: exited with code {exitcode}"


def join(proc: Any, timeout: float) -> None:
    """Wait up to ``timeout`` seconds for the worker ``proc`` to end. ``Process.join`` would
    trust the pipe it watches (the worker holds its write end, and its solver could write to
    it: the join would then wait for the worker's end however long it took); here its end is
    asked of ``waitpid`` without blocking, once that pipe wakes this process, every
    millisecond at most (a process closes its pipes a moment before it has ended)."""
    deadline = time.monotonic() + timeout
    step = 0.0001
    while proc.is_alive():
        left = deadline - time.monotonic()
        if left <= 0:
            return
        if wait([proc.sentinel], left) and proc.is_alive():  # ending, or written to
            time.sleep(min(left, step))
            step = min(2 * step, 0.001)


def _kill_all(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


class WorkerHandle:
    """The parent's handle on one worker: its pipe, and the tasks sent to it, in order.

    Up to :meth:`depth` tasks are in flight, so the worker starts its next solve without
    waiting for the parent; ``inflight`` holds them in order, the oldest unanswered first.
    The worker sends answers in batches, so the task running is not always the head: the
    shared ``clock`` says which it is (the worker's count of tasks started, and when the
    latest started), read by :meth:`running`.
    """

    def __init__(self, ctx: Any, log: Log | None = None, cpu: int | None = None) -> None:
        """``cpu``: the one CPU the worker and every process it starts keep to (None: any)."""
        # one pipe each way: tasks pickled (only the parent writes them), answers in frames
        # the parent checks (see harness.run.worker.wire)
        child_tasks, self.tasks = ctx.Pipe(duplex=False)
        answers, child_answers = os.pipe()
        self.results = Reader(answers)
        self.log = log
        ends = None if log is None else log.pipe()
        #: the read end of the worker's stdout and stderr (None: they go to /dev/null)
        self.output, output = (None, None) if ends is None else ends
        #: [tasks the worker has started, perf_counter when the latest started]: shared
        #: memory the worker writes before each task (no message, no system call)
        self.clock = ctx.RawArray("d", 2)
        self.answered = 0  # tasks whose answers the parent has received
        ours = {child_tasks.fileno(), child_answers, output}
        inherited = tuple(fd for fd in open_fds() if fd > 2 and fd not in ours)
        args = (child_tasks, child_answers, output, inherited, self.clock, cpu)
        self.proc = ctx.Process(target=worker_main, args=args, daemon=True)
        self.proc.start()
        child_tasks.close()
        os.close(child_answers)
        if output is not None:
            os.close(output)
        self.inflight: deque[Task] = deque()
        self.warming = False  # the head task is in its untimed warm-up (the worker said so)
        self.started = 0.0  # when the head task started, as far as the parent knows
        self.next_memory_check = 0.0
        self.mean_task_s: float | None = None  # running mean of this worker's task times

    def send(self, tasks: list[Task]) -> None:
        """Queue ``tasks`` at the worker, in one message."""
        if not self.inflight:
            self._head_started(time.perf_counter())
        self.inflight.extend(tasks)
        # a dead worker: the pool sees EOF on its results and requeues these tasks
        with contextlib.suppress(OSError):
            self.tasks.send([task.wire() for task in tasks])

    def depth(self, cap: int, ahead_s: float = QUEUE_AHEAD_S) -> int:
        """How many tasks to keep queued: ``ahead_s`` of work, 2 to ``cap``."""
        if self.mean_task_s is None:
            return min(2, cap)
        return max(min(2, cap), min(cap, int(ahead_s / max(self.mean_task_s, 1e-6))))

    def learn(self, outcome: Outcome) -> None:
        wall = outcome.wall_s
        if wall is not None:
            m = self.mean_task_s
            self.mean_task_s = wall if m is None else 0.8 * m + 0.2 * wall

    def _head_started(self, now: float) -> None:
        self.started = now
        self.next_memory_check = now + MEMORY_POLL_S

    def finished(self, now: float) -> Task:
        """The head task is answered; the next one started no later than ``now``."""
        task = self.inflight.popleft()
        self.answered += 1
        self.warming = False
        if self.inflight:
            self._head_started(now)
        return task

    def restart(self, at: float) -> None:
        """The head task's clock starts again at ``at`` (after the worker's warm-up)."""
        self.warming = False
        self._head_started(min(max(at, self.started), time.perf_counter()))

    def running(self) -> tuple[int, float]:
        """The task running now, as its index in ``inflight``, and when it started.

        The worker may have finished tasks before it (answers not sent yet): their index
        is lower. When the clock shows no task beyond those answered (the worker is
        between tasks or warming up), the head, since :attr:`started`.
        """
        count = self.clock[0]  # the count first: the worker writes the time before it
        at = self.clock[1]
        index = int(count) - 1 - self.answered
        if self.warming or not 0 <= index < len(self.inflight):
            return 0, self.started
        return index, at

    def quick(self) -> bool:
        """Whether this worker's tasks are short enough to collect by polling."""
        return self.mean_task_s is not None and self.mean_task_s < QUICK_S

    def deadline(self) -> float | None:
        """When the running task is past its limit (its warm-up's while warming)."""
        index, started = self.running()
        timeout = self.inflight[index].timeout
        if timeout is None:
            return None
        if self.warming:
            return started + max(timeout, WARMUP_TIMEOUT_S)
        return started + timeout + kill_grace(timeout)

    def rss_mib(self) -> float:
        """The resident memory now of the worker (all its threads) and of every process it
        started (a ``cmd:`` solver, say), MiB, from /proc."""
        pid = self.proc.pid
        if pid is None:
            return 0.0
        return rss_mib(pid)

    def kill(self) -> None:
        """SIGTERM the worker's process group, SIGKILL it after the grace period; SIGKILL
        every process it started, in whatever session."""
        pid = self.proc.pid
        if pid is None:
            return
        started: list[int] = []
        for sig, wait_s in ((signal.SIGTERM, GRACE_S), (signal.SIGKILL, 5.0)):
            started += descendants(pid)  # before the worker dies and they are reparented
            try:
                os.killpg(pid, sig)
            except (ProcessLookupError, PermissionError):
                break
            join(self.proc, wait_s)
            if not self.proc.is_alive():
                break
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)  # reap anything left in the group after the leader
        _kill_all(started)
        join(self.proc, 1.0)
        self.close_pipes()

    def ask_to_stop(self) -> list[int]:
        """Ask an idle worker to exit, without waiting (so that several exit at once; then
        :meth:`finish_stop`); returns the processes it had started."""
        pid = self.proc.pid
        started = [] if pid is None else descendants(pid)
        with contextlib.suppress(OSError, BrokenPipeError):
            self.tasks.send(None)
        return started

    def finish_stop(self, started: list[int]) -> None:
        """Wait for the worker that :meth:`ask_to_stop` asked to exit; kill it if it does
        not, and whatever it started."""
        join(self.proc, 1.0)
        if self.proc.is_alive():
            self.kill()
        else:
            self.close_pipes()
        _kill_all(started)

    def close_pipes(self) -> None:
        """Close the parent's ends of the worker's pipes, its output read to the end first."""
        if not self.tasks.closed:
            self.tasks.close()
        self.results.close()
        if self.output is not None and self.log is not None:
            self.log.release(self.output)
            self.output = None
