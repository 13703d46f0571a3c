"""The pool: the parent's side of the worker processes, and the limits it enforces.

Limits. The parent never trusts a worker to stop. Each worker is its own process group
(session). A backend is given what is left of the timeout after encoding as its own time
limit, so one that watches the clock stops in time and reports its counters. When a solve
runs :func:`kill_grace` past its timeout, or the worker's resident memory passes the limit,
the parent sends SIGTERM to the whole group, then SIGKILL after :data:`GRACE_S`, records
TIMEOUT or MEMOUT with the time the solve ran, and starts a fresh worker. This holds for C
extensions that never return to the interpreter (pycosat, python-constraint's compiled
core), which no in-process alarm can stop. A worker that dies by itself (segfault,
an exit of its own) gives an ERROR outcome naming the signal or exit code.

Warm-up. Before its first task of a (backend, grid size), a worker sends a
:class:`~harness.run.worker.wire.Warming` notice, builds the backend and solves an easy puzzle,
untimed, then sends :class:`~harness.run.worker.wire.Ready`, and the parent starts that task's
clock again. Until then the warm-up has its own limit: the task's timeout, and at least
:data:`~harness.run.worker.handle.WARMUP_TIMEOUT_S`.

Throughput. The harness must cost little next to a sub-millisecond solve. The parent keeps
enough tasks queued at each worker to cover :data:`QUEUE_AHEAD_S` of solving (at least 2,
at most :data:`MAX_DEPTH`), so the worker never waits for the parent; for slow solves the
queue stays at 2, so ``--jobs N`` does not strand long tasks behind a busy worker at the
end of a run; a pool of one worker, which cannot strand any, keeps :data:`SOLO_AHEAD_S`
queued (see :meth:`WorkerPool._depth`). A worker sends its answers in batches, every
:data:`~harness.run.worker.child.FLUSH_S` and whenever it runs out of tasks, and writes to a
shared clock which task it is running since when: limits apply to that task, and when a
worker is killed, the answers it had not sent yet are given back and run again. When
solves are short, the parent polls every :data:`POLL_S` instead of blocking on the pipes
(the wake-up of a blocked reader is paid by the writing worker), until every task is sent.

Pairs. In a run whose solves go to processes of git trees (``--against``, ``harness history
run``: :mod:`harness.run.worker.trees`), each worker keeps to one CPU, the n-th worker to the
n-th CPU the harness may use, and the processes it starts keep to it too: the two sides of a
pair are measured on one CPU, never one side on a CPU that another process shares more.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import select
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

from backends.base import Status
from harness.outcome import Outcome, make_outcome
from harness.run.worker import trees
from harness.run.worker.handle import QUEUE_AHEAD_S, WorkerHandle, describe_death, join
from harness.run.worker.output import Log
from harness.run.worker.reaper import MEMORY_POLL_S
from harness.run.worker.wire import (
    FRAME_STALL_S,
    Malformed,
    Task,
    Warming,
    readable,
)
from harness.tables.humanize import seconds

#: Most tasks queued at one worker.
MAX_DEPTH = 256
#: Short tasks (see :meth:`WorkerHandle.quick`) are collected by polling every POLL_S seconds.
POLL_S = 0.002
#: Seconds of solving kept queued at a pool's only worker (see :meth:`WorkerPool._depth`).
SOLO_AHEAD_S = 0.05


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
        """Up to ``count`` tasks, the given-back ones first (fewer only when none are left)."""
        front = self._front
        taken = [front.popleft() for _ in range(min(count, len(front)))]
        taken += islice(self._source, count - len(taken))
        return taken

    def give_back(self, tasks: Iterable[Task]) -> None:
        """Put ``tasks`` (in their order) before every other task still to send."""
        self._front.extendleft(reversed(list(tasks)))


class WorkerPool:
    """Up to ``jobs`` worker processes; :meth:`run` yields ``(task, outcome)`` as solves
    finish.

    This is the one place that decides how a (backend, puzzle) pair is executed. Workers
    start as tasks arrive, never more than there are tasks. Each holds up to ``depth`` tasks
    so it never idles waiting for the parent; when a worker is killed, the tasks queued
    behind the killed one go to its replacement. A (backend, grid size) whose warm-up fails
    (raises, hangs past its limit, see :meth:`WorkerHandle.deadline`, kills its worker)
    is broken from then on: each of its remaining tasks is ERROR at once, naming the
    failure. Workers write their stdout and stderr to ``log`` (appended, up to a cap: see
    :mod:`harness.run.worker.output`), or nowhere. A worker that sends what is no answer
    (see :mod:`harness.run.worker.wire`) is replaced, and the task it ran is ERROR. Short
    solves are collected every ``poll_s`` seconds (see :meth:`_wait`).
    """

    def __init__(
        self,
        jobs: int = 1,
        memory_limit_mib: float | None = None,
        depth: int = MAX_DEPTH,
        log: Path | str | None = None,
        poll_s: float = POLL_S,
    ) -> None:
        if jobs < 1:
            raise ValueError(f"jobs must be at least 1, got {jobs}")
        self.jobs = jobs
        self.depth = max(1, depth)  # the most tasks queued at one worker
        self.memory_limit_mib = memory_limit_mib
        self.log = Log(None if log is None else os.fspath(log))
        self.poll_s = poll_s  # see _wait
        self._ctx = mp.get_context("fork")
        #: the CPUs workers keep to, one each in turn (see Pairs above); empty: any CPU
        self._cpus = sorted(os.sched_getaffinity(0)) if trees.ROUTES else []
        self._workers: list[WorkerHandle] = []
        self._broken: dict[tuple[str, int], str] = {}  # (spec, box) -> its warm-up failure
        self._decided: deque[tuple[Task, Outcome]] = deque()  # answered here, not yet yielded
        self._idle: Callable[[bool], None] | None = None  # see run()
        self._receive: Callable[[tuple], Outcome] = Outcome.received  # see run()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        idle = [(w, w.ask_to_stop()) for w in self._workers if not w.inflight]  # exit at once
        for worker in self._workers:
            if worker.inflight:
                worker.kill()
        for worker, started in idle:
            worker.finish_stop(started)
        self._workers = []
        self.log.close()

    def _start(self, slot: int) -> WorkerHandle:
        """A new worker for the ``slot``-th place, on its CPU when workers are pinned."""
        cpu = self._cpus[slot % len(self._cpus)] if self._cpus else None
        return WorkerHandle(self._ctx, self.log, cpu)

    def _replace(self, worker: WorkerHandle, pending: _Feed, index: int = 0) -> Task:
        """Kill ``worker``; return its task at ``index`` in ``inflight`` (the one that ran
        too long, or ran when it died). Every other task it had goes back to the front:
        those after it, and those before it whose answers it had not sent yet."""
        worker.kill()
        task = worker.inflight[index]
        del worker.inflight[index]
        pending.give_back(worker.inflight)
        slot = self._workers.index(worker)
        self._workers[slot] = self._start(slot)
        return task

    def _refill(self, worker: WorkerHandle, pending: _Feed, count: int | None = None) -> None:
        """Queue tasks at ``worker`` up to its depth (or ``count`` more); a task of a broken
        (backend, size) is answered here instead. A pool's only worker is topped up once
        half its queue is done, in few, large batches (see :meth:`_depth`)."""
        if count is None:
            depth = self._depth(worker)
            if self.jobs == 1 and len(worker.inflight) > depth // 2:
                return
            want = depth - len(worker.inflight)
        else:
            want = count
        tasks = pending.take(want) if want > 0 else []
        if self._broken:
            tasks = self._runnable(tasks, want, pending)
        if tasks:
            worker.send(tasks)

    def _runnable(self, tasks: list[Task], want: int, pending: _Feed) -> list[Task]:
        """``tasks`` but those of a broken (backend, size), answered here instead, made up
        from ``pending`` up to ``want``."""
        runnable: list[Task] = []
        while tasks:
            for task in tasks:
                failure = self._broken.get((task.backend, task.puzzle.box))
                if failure is None:
                    runnable.append(task)
                else:
                    self._decided.append((task, Outcome(Status.ERROR, failure)))
            tasks = pending.take(want - len(runnable))
        return runnable

    def _depth(self, worker: WorkerHandle) -> int:
        """How many tasks to keep queued at ``worker`` (see :meth:`WorkerHandle.depth`):
        :data:`QUEUE_AHEAD_S` of work, or :data:`SOLO_AHEAD_S` at a pool's only worker. No
        other worker could take a task queued behind a busy one, and fewer, larger batches
        wake the worker and this process less often."""
        return worker.depth(self.depth, SOLO_AHEAD_S if self.jobs == 1 else QUEUE_AHEAD_S)

    def forget_task_times(self) -> None:
        """Learn the workers' task times afresh (their next tasks are another backend's):
        until then each is kept 2 tasks, not a queue sized by another backend's times."""
        for worker in self._workers:
            worker.mean_task_s = None

    def _grow(self, pending: _Feed) -> None:
        """Start workers while there are tasks for them, one task each, up to ``jobs``."""
        while len(self._workers) < self.jobs and pending:
            worker = self._start(len(self._workers))
            self._workers.append(worker)
            self._refill(worker, pending, 1)

    def run(
        self,
        tasks: Iterable[Task],
        idle: Callable[[bool], None] | None = None,
        *,
        wire: bool = False,
    ) -> Iterator[tuple[Task, Outcome]]:
        """Run ``tasks``; yield each with its outcome as it finishes (see :meth:`batches`)."""
        for batch in self.batches(tasks, idle, wire=wire):
            yield from batch

    def batches(
        self,
        tasks: Iterable[Task],
        idle: Callable[[bool], None] | None = None,
        *,
        wire: bool = False,
    ) -> Iterator[list[tuple[Task, Outcome]]]:
        """Run ``tasks``; yield them with their outcomes as they finish, in lists: the
        answers of one message from a worker, or one outcome decided here.

        ``tasks`` is drawn only as workers need more, so a generator lets the first solves
        start while the rest are still being built. ``idle(long)`` is called whenever the
        parent is about to wait for answers: ``long`` is False for a poll of at most
        :data:`POLL_S`, True for a wait that may last until a limit (the caller's buffered
        rows should reach the disk first).

        ``wire=True``: an answer a worker sent is yielded as it came through the pipe,
        not decoded (its status the :class:`~backends.base.Status` value as a string, its
        solution bytes where they fit; see :meth:`Outcome.wire`), for a caller that sends
        it on (a Dask worker: :func:`harness.run.cluster.dask_worker.run_chunk`). Outcomes the
        pool decides itself (a kill, a dead worker, a broken warm-up) have a Status, as
        always.
        """
        self._idle = idle
        self._receive = make_outcome if wire else Outcome.received
        pending = _Feed(tasks)
        while pending or self._decided or any(w.inflight for w in self._workers):
            self._grow(pending)
            for worker in self._workers:
                self._refill(worker, pending)
            while self._decided:
                yield [self._decided.popleft()]
            busy = [w for w in self._workers if w.inflight]
            if not busy:
                continue
            yield from self._wait(busy, pending)

    def _wait(
        self, busy: list[WorkerHandle], pending: _Feed
    ) -> Iterator[list[tuple[Task, Outcome]]]:
        """Wait for answers or a limit; yield what came, and the tasks killed for a limit."""
        now = time.perf_counter()
        wake = [w.next_memory_check for w in busy if self.memory_limit_mib]
        wake += [d for d in (w.deadline() for w in busy) if d is not None]
        wake += [w.results.partial_since + FRAME_STALL_S for w in busy if w.results.partial_since]
        timeout = max(0.0, min(wake) - now) if wake else None
        pipes: list[Any] = [w.results for w in busy]
        pipes += self.log.readers  # the workers' output, read as it comes
        quick = bool(pending) and all(w.quick() for w in busy)
        if self._idle is not None:
            self._idle(not quick)
        if quick:
            # Short solves: sleep, then take every answer waiting. A process blocked on
            # a pipe must be woken by each write, and that wake-up is paid by
            # the writing worker, between two solves. Once every task has been sent, the
            # last answers are waited for instead: they end the run (or a Dask chunk, whose
            # next one waits for them), and a poll would notice them late.
            time.sleep(self.poll_s if timeout is None else min(self.poll_s, timeout))
            ready = select.select(pipes, (), (), 0)[0]
        else:
            ready = wait(pipes, timeout)
        if self.log.readers:
            self.log.pump(fd for fd in ready if type(fd) is int)
        now = time.perf_counter()
        for worker in busy:
            if worker.results in ready:
                yield from self._answers(worker, pending)
                continue
            overdue = (deadline := worker.deadline()) is not None and now >= deadline
            half_read = worker.results.partial_since is not None  # an honest frame comes whole
            if worker.results.stalled(now) or (overdue and half_read):
                yield [self._malformed(worker, pending, "a frame that stopped half-way")]
            elif overdue:
                index, started = worker.running()
                elapsed = now - started
                warming = worker.warming
                task = self._replace(worker, pending, index)
                if warming:
                    yield [(task, self._warmup_failed(task, f"no answer after {seconds(elapsed)}"))]
                else:
                    message = f"killed after {seconds(elapsed)}"
                    yield [(task, _killed(Status.TIMEOUT, message, elapsed))]
            elif self.memory_limit_mib and now >= worker.next_memory_check:
                worker.next_memory_check = now + MEMORY_POLL_S
                rss = worker.rss_mib()
                if rss > self.memory_limit_mib:
                    index, started = worker.running()
                    task = self._replace(worker, pending, index)
                    message = f"killed at {rss:.0f} MiB > limit {self.memory_limit_mib:.0f}"
                    yield [(task, _killed(Status.MEMOUT, message, now - started, rss))]

    def _warmup_failed(self, task: Task, reason: str) -> Outcome:
        """Mark ``task``'s (backend, size) broken for ``reason``; the task's ERROR outcome."""
        failure = f"warm-up failed: {reason}"
        self._broken[(task.backend, task.puzzle.box)] = failure
        return Outcome(Status.ERROR, failure)

    def _answers(
        self, worker: WorkerHandle, pending: _Feed
    ) -> Iterator[list[tuple[Task, Outcome]]]:
        """Every answer waiting in ``worker``'s pipe; when it died, the task it was running
        is ERROR; when it sent what is no answer, that task is ERROR and it is replaced."""
        while True:
            try:
                received = worker.results.read()
                if sum(type(item) is tuple for item in received) > len(worker.inflight):
                    raise Malformed("more answers than tasks")
            except EOFError:
                yield [self._died(worker, pending)]
                return
            except Malformed as exc:
                yield [self._malformed(worker, pending, str(exc))]
                return
            answers = []
            now = time.perf_counter()  # the message came no later: its tasks were done
            for item in received:
                if type(item) is tuple:
                    outcome = self._receive(item)
                    worker.learn(outcome)
                    answers.append((worker.finished(now), outcome))
                elif type(item) is Warming:  # about the head task's warm-up
                    worker.warming = True
                elif worker.inflight:  # Ready: warmed up, the timed part starts at item.at
                    if item.failure is not None:
                        head = worker.inflight[0]
                        self._broken[(head.backend, head.puzzle.box)] = item.failure
                    worker.restart(item.at)
            if len(worker.inflight) < self._depth(worker) // 2:
                self._refill(worker, pending)  # keep it busy while the caller handles these
            if answers:
                yield answers
            if not (worker.inflight and readable(worker.results)) and not worker.results.failed:
                return  # (a failure is what came after these answers: the end, or junk)

    def _malformed(self, worker: WorkerHandle, pending: _Feed, reason: str) -> tuple[Task, Outcome]:
        """A worker that sent what is no answer (its solver wrote to its pipe, say): it is
        replaced, and the task it was running is ERROR."""
        index, started = worker.running()
        elapsed = time.perf_counter() - started
        task = self._replace(worker, pending, index)
        return task, _killed(Status.ERROR, f"worker sent a malformed answer: {reason}", elapsed)

    def _died(self, worker: WorkerHandle, pending: _Feed) -> tuple[Task, Outcome]:
        """A worker found dead: the task it was running is ERROR (a warm-up's failure when
        it died warming up), naming the signal or exit code."""
        index, started = worker.running()
        elapsed = time.perf_counter() - started
        join(worker.proc, 1.0)
        message = describe_death(worker.proc.exitcode)
        warming = worker.warming
        task = self._replace(worker, pending, index)
        if warming:
            return task, self._warmup_failed(task, message)
        return task, _killed(Status.ERROR, message, elapsed)


def _killed(status: Status, message: str, elapsed: float, rss: float | None = None) -> Outcome:
    """The outcome of a task whose worker the parent killed, or found dead."""
    return Outcome(status, message, solve_s=elapsed, peak_rss_mib=rss, wall_s=elapsed)
