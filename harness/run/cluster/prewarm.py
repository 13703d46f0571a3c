"""A Dask worker's solver process, started and warmed up before its first chunk comes.

While the harness checks the workers (:func:`~harness.run.cluster.dask_worker.worker_facts`),
each may start, in the background, the solver process that its first chunk would start,
and warm it up for the run's first backend and grid size, as the harness guesses them.
The warm-up (an import, tables, a first solve: 20-30 ms for a fast backend, seconds for
some) then overlaps the cluster's last steps before it solves, and the first chunk finds
the process ready (:func:`take`). It is the warm-up :mod:`harness.run.worker.pool` runs on any
first task, untimed, then an easy puzzle solved, timed, and dropped; a warm-up that fails
leaves that (spec, box) broken in the pool, as on any first task.

The thread that forks the solver process lives until that process is stopped: Linux kills
a worker process when the *thread* that forked it ends (see
:func:`harness.run.worker.child._die_with_parent`). A worker that outlives a run (a ``dask
worker`` started by hand) closes what each run started: the chunk that takes a prewarmed
pool closes the pool it had, and a prewarm that no chunk took is closed by the next.
"""

from __future__ import annotations

import threading

from harness.run.worker import Task, WorkerPool
from harness.run.worker.measure import warmup_puzzle

#: Seconds the solve of the warm-up puzzle may take.
TIMEOUT_S = 10.0


class Prewarmed:
    """A pool being started and warmed up in a thread of its own."""

    def __init__(self, spec: str, box: int, memory_limit_mib: float | None, poll_s: float):
        self.ready = threading.Event()  # the warm-up is over (or failed)
        #: Set once the pool is closed: its thread, which forked the solver process, ends.
        self.closed = threading.Event()
        self.pool: WorkerPool | None = None  # None if the warm-up could not run
        args = (spec, box, memory_limit_mib, poll_s)
        threading.Thread(target=self._start, args=args, name="harness prewarm", daemon=True).start()

    def _start(self, spec: str, box: int, memory_limit_mib: float | None, poll_s: float) -> None:
        try:
            pool = WorkerPool(1, memory_limit_mib, poll_s=poll_s)
            try:
                for _ in pool.run([Task(spec, warmup_puzzle(box), 1, TIMEOUT_S)]):
                    pass
            except Exception:  # only a head start: the first chunk starts its own pool
                pool.close()
                self.closed.set()
                return
            self.pool = pool
        finally:
            self.ready.set()  # whatever happened: a chunk may wait for this
        self.closed.wait()

    def close(self) -> None:
        """Close the pool (once the warm-up is over), and let the thread end."""
        self.ready.wait()
        if self.pool is not None:
            self.pool.close()
        self.closed.set()


#: The prewarm started and not taken yet (at most one).
_pending: list[Prewarmed] = []


def start(spec: str, box: int, memory_limit_mib: float | None, poll_s: float) -> None:
    """Start a pool of one solver process, warmed up for ``spec`` at box side ``box``, for
    :func:`take`; close the one started before, if no chunk took it."""
    left = _pop()
    if left is not None:
        threading.Thread(target=left.close, name="harness prewarm close", daemon=True).start()
    _pending.append(Prewarmed(spec, box, memory_limit_mib, poll_s))


def take() -> Prewarmed | None:
    """The prewarm :func:`start` started, once its warm-up is over, to be closed by whoever
    took it; None when there is none (or another thread took it)."""
    prewarmed = _pop()
    if prewarmed is not None:
        prewarmed.ready.wait()
    return prewarmed


def _pop() -> Prewarmed | None:
    """The prewarm pending, now no longer pending; None when there is none (list.pop is
    atomic: of two threads taking it at once, one gets it)."""
    try:
        return _pending.pop()
    except IndexError:
        return None
