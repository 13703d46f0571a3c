"""The pool: the parent's side of the worker processes, and the limits it enforces.

Limits. The parent never trusts a worker to stop. Each worker is its own process group
(session). A backend is given what is left of the timeout after encoding as its own time
limit, so one that watches the clock stops in time and reports its counters. When a solve
runs :func:`kill_grace` past its timeout, or the worker's resident memory passes the limit,
the parent sends SIGTERM to the whole group, then SIGKILL after :data:`GRACE_S`, records
TIMEOUT or MEMOUT with the time the solve ran, and starts a fresh worker. This holds for C
extensions that never return to the interpreter (pycosat, python-constraint's compiled
core), which no in-process alarm can stop. A worker that dies by itself (segfault,
``os._exit``) gives an ERROR outcome naming the signal or exit code.

Warm-up. Before its first task of a (backend, grid size), a worker sends a
:class:`~harness.worker.wire.Warming` notice, builds the backend and solves an easy puzzle,
untimed, then sends :class:`~harness.worker.wire.Ready`, and the parent starts that task's
clock again. Until then the warm-up has its own limit, :data:`WARMUP_TIMEOUT_S`.

Throughput. The harness must cost little next to a sub-millisecond solve. The parent keeps
enough tasks queued at each worker to cover :data:`QUEUE_AHEAD_S` of solving (at least 2,
at most :data:`MAX_DEPTH`), so the worker never waits for the parent; for slow solves the
queue stays at 2, so ``--jobs N`` does not strand long tasks behind a busy worker at the
end of a run. When solves are short, the parent polls every :data:`POLL_S` instead of
blocking on the pipes: the wake-up of a blocked reader is paid by the writing worker.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import time
from collections import deque
from collections.abc import Iterable, Iterator
from multiprocessing.connection import wait
from typing import Any

from backends.base import Status
from harness.worker.child import worker_main
from harness.worker.imports import join_background_imports
from harness.worker.wire import Outcome, Task, Warming

#: Seconds between SIGTERM and SIGKILL when a worker is stopped.
GRACE_S = 0.3
#: The parent kills a solve this long after its timeout (see :func:`kill_grace`).
KILL_GRACE_MAX_S = 0.5
#: Seconds a worker may spend building and warming up a backend (imports, tables) before
#: a task, apart from the task's own timeout.
WARMUP_TIMEOUT_S = 60.0
#: How often the parent samples a busy worker's memory, seconds.
MEMORY_POLL_S = 0.05
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
#: File descriptors of the parent's ends of every open worker pipe (closed in each child).
_parent_ends: set[int] = set()
#: Seconds of solving the parent keeps queued at each worker (see the module docstring).
QUEUE_AHEAD_S = 0.01
#: Most tasks queued at one worker.
MAX_DEPTH = 32
#: Tasks shorter than this on average are collected by polling every POLL_S seconds.
QUICK_S = 0.002
POLL_S = 0.002


def kill_grace(timeout: float) -> float:
    """How long after ``timeout`` the parent kills a solve: 0.1 s + 10 %, at most 0.5 s.

    A backend that watches its ``time_limit`` stops by itself within it and its row keeps
    its counters; one that cannot (a C extension) is killed, and its row has none. Either
    way the row is TIMEOUT, and the kill comes well within ``timeout`` + 1 s.
    """
    return min(KILL_GRACE_MAX_S, 0.1 + 0.1 * timeout)


def _describe_death(exitcode: int | None) -> str:
    if exitcode is None:
        return "worker vanished"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"worker died: killed by {name}"
    return f"worker died: exited with code {exitcode}"


class _Worker:
    """The parent's handle on one worker: its pipe, and the tasks sent to it, in order.

    Up to :meth:`depth` tasks are in flight, so the worker starts its next solve without
    waiting for the parent; the head of ``inflight`` is the one running, since ``started``.
    """

    def __init__(self, ctx: Any) -> None:
        join_background_imports()  # never fork while another thread may hold an import lock
        # one pipe each way: a one-way pipe is cheaper per message than a duplex socket
        child_tasks, self.tasks = ctx.Pipe(duplex=False)
        self.results, child_results = ctx.Pipe(duplex=False)
        _parent_ends.update((self.tasks.fileno(), self.results.fileno()))
        args = (child_tasks, child_results, os.getpid(), tuple(_parent_ends))
        self.proc = ctx.Process(target=worker_main, args=args, daemon=True)
        self.proc.start()
        child_tasks.close()
        child_results.close()
        self.inflight: deque[Task] = deque()
        self.warming = False  # the head task is in its untimed warm-up (the worker said so)
        self.started = 0.0
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

    def depth(self, cap: int) -> int:
        """How many tasks to keep queued: :data:`QUEUE_AHEAD_S` of work, 2 to ``cap``."""
        if self.mean_task_s is None:
            return min(2, cap)
        return max(min(2, cap), min(cap, int(QUEUE_AHEAD_S / max(self.mean_task_s, 1e-6))))

    def learn(self, outcome: Outcome) -> None:
        wall = outcome.wall_s
        if wall is not None:
            m = self.mean_task_s
            self.mean_task_s = wall if m is None else 0.8 * m + 0.2 * wall

    def _head_started(self, now: float) -> None:
        self.started = now
        self.next_memory_check = now + MEMORY_POLL_S

    def finished(self, done_at: float | None) -> Task:
        """The head task is done; the next one (if any) started when the worker sent it.

        ``done_at`` is the worker's ``perf_counter`` when it finished (the same monotonic
        clock in every process); None means now.
        """
        task = self.inflight.popleft()
        self.warming = False
        if self.inflight:
            now = time.perf_counter()
            self._head_started(now if done_at is None else min(max(done_at, self.started), now))
        return task

    def restart(self, at: float) -> None:
        """The head task's clock starts again at ``at`` (after the worker's warm-up)."""
        self.warming = False
        self._head_started(min(max(at, self.started), time.perf_counter()))

    def quick(self) -> bool:
        """Whether this worker's tasks are short enough to collect by polling."""
        return self.mean_task_s is not None and self.mean_task_s < QUICK_S

    def deadline(self) -> float | None:
        timeout = self.inflight[0].timeout
        if timeout is None:
            return None
        if self.warming:
            return self.started + max(timeout, WARMUP_TIMEOUT_S)
        return self.started + timeout + kill_grace(timeout)

    def rss_mib(self) -> float:
        """The worker's resident memory now (all its threads), MiB."""
        try:  # /proc costs ~20 us; psutil's process-tree walk costs milliseconds
            with open(f"/proc/{self.proc.pid}/statm") as f:
                return int(f.read().split()[1]) * PAGE_BYTES / 2**20
        except (OSError, ValueError, IndexError):
            import psutil

            try:
                return psutil.Process(self.proc.pid).memory_info().rss / 2**20
            except psutil.Error:
                return 0.0

    def kill(self) -> None:
        """SIGTERM the worker's process group, SIGKILL it after the grace period."""
        pid = self.proc.pid
        if pid is None:
            return
        for sig, wait_s in ((signal.SIGTERM, GRACE_S), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(pid, sig)
            except (ProcessLookupError, PermissionError):
                break
            self.proc.join(wait_s)
            if not self.proc.is_alive():
                break
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)  # reap anything left in the group after the leader
        self.proc.join(1.0)
        self.close_pipes()

    def stop(self) -> None:
        with contextlib.suppress(OSError, BrokenPipeError):
            self.tasks.send(None)
        self.proc.join(1.0)
        if self.proc.is_alive():
            self.kill()
        else:
            self.close_pipes()

    def close_pipes(self) -> None:
        for end in (self.tasks, self.results):
            if not end.closed:
                _parent_ends.discard(end.fileno())
                end.close()


class _Feed:
    """The tasks still to send: those a killed worker gave back first, then the caller's
    iterable, drawn from only as workers need tasks."""

    def __init__(self, tasks: Iterable[Task]) -> None:
        self._front: deque[Task] = deque()
        self._source = iter(tasks)

    def __bool__(self) -> bool:
        if not self._front:
            task = next(self._source, None)
            if task is None:
                return False
            self._front.append(task)
        return True

    def take(self, count: int) -> list[Task]:
        taken: list[Task] = []
        while len(taken) < count and self:
            taken.append(self._front.popleft())
        return taken

    def give_back(self, tasks: Iterable[Task]) -> None:
        """Put ``tasks`` (in their order) before every other task still to send."""
        self._front.extendleft(reversed(list(tasks)))


class WorkerPool:
    """``jobs`` worker processes; :meth:`run` yields ``(task, outcome)`` as solves finish.

    This is the one place that decides how a (backend, puzzle) pair is executed. Each
    worker holds up to ``depth`` tasks so it never idles waiting for the parent; when a
    worker is killed, the tasks queued behind the killed one go to its replacement.
    """

    def __init__(
        self, jobs: int = 1, memory_limit_mib: float | None = None, depth: int = MAX_DEPTH
    ) -> None:
        if jobs < 1:
            raise ValueError(f"jobs must be at least 1, got {jobs}")
        self.jobs = jobs
        self.depth = max(1, depth)  # the most tasks queued at one worker
        self.memory_limit_mib = memory_limit_mib
        self._ctx = mp.get_context("fork")
        self._workers: list[_Worker] = []

    def __enter__(self) -> WorkerPool:
        self._workers = [_Worker(self._ctx) for _ in range(self.jobs)]
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for worker in self._workers:
            if worker.inflight:
                worker.kill()
            else:
                worker.stop()
        self._workers = []

    def _replace(self, worker: _Worker, pending: _Feed) -> None:
        """Kill ``worker``; its queued tasks (all but the head) go back to the front."""
        worker.kill()
        worker.inflight.popleft()
        pending.give_back(worker.inflight)
        self._workers[self._workers.index(worker)] = _Worker(self._ctx)

    def _refill(self, worker: _Worker, pending: _Feed) -> None:
        tasks = pending.take(worker.depth(self.depth) - len(worker.inflight))
        if tasks:
            worker.send(tasks)

    def run(self, tasks: Iterable[Task]) -> Iterator[tuple[Task, Outcome]]:
        """Run ``tasks``; yield each with its outcome as it finishes.

        ``tasks`` is drawn only as workers need more, so a generator lets the first solves
        start while the rest are still being built.
        """
        pending = _Feed(tasks)
        if not self._workers:
            self.__enter__()
        while pending or any(w.inflight for w in self._workers):
            for worker in self._workers:
                self._refill(worker, pending)
            busy = [w for w in self._workers if w.inflight]
            now = time.perf_counter()
            wake = [w.next_memory_check for w in busy if self.memory_limit_mib]
            wake += [d for d in (w.deadline() for w in busy) if d is not None]
            timeout = max(0.0, min(wake) - now) if wake else None
            pipes = [w.results for w in busy]
            if all(w.quick() for w in busy):
                # Short solves: sleep, then take every answer waiting. A process blocked on
                # a pipe must be woken by each write, and that wake-up (~10 us) is paid by
                # the writing worker, between two solves.
                time.sleep(POLL_S if timeout is None else min(POLL_S, timeout))
                ready = wait(pipes, 0)
            else:
                ready = wait(pipes, timeout)
            now = time.perf_counter()
            for worker in busy:
                if worker.results in ready:
                    yield from self._answers(worker, pending)
                    continue
                task = worker.inflight[0]
                elapsed = now - worker.started
                deadline = worker.deadline()
                if deadline is not None and now >= deadline:
                    during = " during the warm-up" if worker.warming else ""
                    self._replace(worker, pending)
                    message = f"killed{during} after {elapsed:.3f} s"
                    yield task, _killed(Status.TIMEOUT, message, elapsed)
                elif self.memory_limit_mib and now >= worker.next_memory_check:
                    worker.next_memory_check = now + MEMORY_POLL_S
                    rss = worker.rss_mib()
                    if rss > self.memory_limit_mib:
                        self._replace(worker, pending)
                        message = f"killed at {rss:.0f} MiB > limit {self.memory_limit_mib:.0f}"
                        yield task, _killed(Status.MEMOUT, message, elapsed, rss)

    def _answers(self, worker: _Worker, pending: _Feed) -> Iterator[tuple[Task, Outcome]]:
        """Every answer waiting in ``worker``'s pipe; a dead worker's head task is ERROR."""
        while worker.inflight:
            task = worker.inflight[0]
            try:
                received = worker.results.recv()
                if type(received) is not tuple:  # a notice about the head task's warm-up
                    if type(received) is Warming:
                        worker.warming = True
                    else:  # Ready: warmed up, the timed part starts at received.at
                        worker.restart(received.at)
                    if not worker.results.poll():
                        return
                    continue
            except (EOFError, OSError):
                elapsed = time.perf_counter() - worker.started
                worker.proc.join(1.0)
                message = _describe_death(worker.proc.exitcode)
                self._replace(worker, pending)
                yield task, _killed(Status.ERROR, message, elapsed)
                return
            outcome = Outcome.received(received)
            worker.finished(outcome.done_at)
            worker.learn(outcome)
            if len(worker.inflight) < 2:  # keep it busy while the caller handles the answer
                self._refill(worker, pending)
            yield task, outcome
            if not worker.results.poll():
                return


def _killed(status: Status, message: str, elapsed: float, rss: float | None = None) -> Outcome:
    """The outcome of a task whose worker the parent killed, or found dead."""
    return Outcome(status, message, solve_s=elapsed, peak_rss_mib=rss, wall_s=elapsed)
