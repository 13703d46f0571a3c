"""What runs on a Dask worker: the facts the harness checks, and a chunk's solves."""

from __future__ import annotations

import math
import multiprocessing
import pickle
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

from backends.base import Status
from backends.puzzle import Puzzle
from harness import provenance
from harness.cluster.target import DAEMON_SETTING, ClusterError
from harness.worker import Task, WorkerPool
from harness.worker.measure import warmup_puzzle
from harness.worker.wire import WireTask

#: Seconds the solve of the warm-up puzzle that :func:`prewarm` times may take.
PREWARM_TIMEOUT_S = 10.0
#: Seconds between a chunk's pool's looks at its solver process's answers while it has
#: tasks to hand out (a local run's pool looks every 2 ms: its answers become rows). The
#: pool keeps 50 ms of solving queued there, and a chunk's last answers are waited for, so
#: looking less often loses no solving; it leaves the cores to the solvers, which on a
#: machine whose every core solves share them with the Dask workers.
CHUNK_POLL_S = 0.01


def worker_facts(
    warm: tuple[str, int, float | None] | None = None, environment: bool = True
) -> dict[str, Any]:
    """Run on each Dask worker: whether it may start processes, its host and (unless
    ``environment`` is False) its environment. With ``warm``, a worker that may start
    processes also starts its solver process (see :func:`prewarm`)."""
    daemon = multiprocessing.current_process().daemon
    facts = {"daemon": daemon, "host": socket.gethostname()}
    if environment:
        facts["environment"] = host_environment()
    if warm is not None and not daemon:
        prewarm(*warm)  # once the facts are in: it would take turns with them
    return facts


#: The pool :func:`prewarm` is starting, and when it is ready, until a chunk takes it.
_prewarmed: list[tuple[threading.Event, list[WorkerPool]]] = []


def prewarm(spec: str, box: int, memory_limit_mib: float | None) -> None:
    """Start, in the background, the solver process that :func:`run_chunk` would start on
    the first chunk, and warm it up for ``spec`` at box side ``box`` (the run's first task,
    as the harness guesses it), so that the first chunk finds it ready.

    The warm-up (an import, tables, a first solve: 20-30 ms for a fast backend, seconds
    for some) then overlaps the cluster's last steps before it solves (this check, the
    harness's first chunks on their way). It is the warm-up :mod:`harness.worker.pool`
    runs on any first task, untimed, then an easy puzzle solved, timed, and dropped; a
    warm-up that fails leaves that (spec, box) broken in the pool, as on any first task.

    The thread that starts the solver process lives as long as this worker: Linux kills a
    worker process when the *thread* that forked it ends (see
    :func:`harness.worker.child._die_with_parent`).
    """
    ready, into = threading.Event(), []

    def start() -> None:
        try:
            pool = WorkerPool(1, memory_limit_mib, poll_s=CHUNK_POLL_S)
            try:
                for _ in pool.run([Task(spec, warmup_puzzle(box), 1, PREWARM_TIMEOUT_S)]):
                    pass
            except Exception:  # only a head start: the first chunk starts its own pool
                pool.close()
                return
            into.append(pool)
        finally:
            ready.set()  # whatever happened: a chunk waits for this
        threading.Event().wait()  # never set: see above

    _prewarmed[:] = [(ready, into)]
    threading.Thread(target=start, name="harness prewarm", daemon=True).start()


def _take_prewarmed() -> WorkerPool | None:
    """The pool :func:`prewarm` started, once it is ready; None when there is none."""
    try:
        ready, into = _prewarmed.pop()  # one chunk takes it: another thread's gets None
    except IndexError:
        return None
    ready.wait()
    return into[0] if into else None


#: What makes one host's timings comparable with another's, from
#: :func:`provenance.environment` (not the git state of its working directory: the harness
#: records its own).
HOST_FACTS = ("project_version", "python", "packages", "machine")


def host_environment(environment: dict[str, Any] | None = None) -> dict[str, Any]:
    """The :data:`HOST_FACTS` of ``environment`` (this process's when None)."""
    env = provenance.environment(git=False) if environment is None else environment
    return {key: env[key] for key in HOST_FACTS}


_local = threading.local()


def run_chunk(sent: bytes, memory_limit_mib: float | None, budget_s: float | None = None) -> bytes:
    """Run on a Dask worker: solve the pickled tasks in this thread's warm pool; their
    outcomes, in order and naming this host, pickled.

    With ``budget_s``, no task but the first is handed to the solver process once
    ``budget_s`` seconds have passed since the chunk came: the outcomes of the tasks not
    handed are None, for the harness to send again. The pool keeps about
    :data:`~harness.worker.pool.SOLO_AHEAD_S` of tasks queued at its solver process, so a
    chunk may run that much past its budget.

    Both cross the cluster in the form they take on the worker pool's pipes (see
    :mod:`harness.worker.wire`): plain tuples, digits as bytes, here pickled into one
    ``bytes`` each way. Dask would serialize a list item by item (a ~10,000-row chunk of
    fast solves took 50 ms of the worker's event loop), and Task and Outcome objects cost
    ~10 times as much to pickle as their plain tuples.
    """
    if multiprocessing.current_process().daemon:
        raise ClusterError(f"this Dask worker is daemonic; start it with {DAEMON_SETTING}")
    pool = getattr(_local, "pool", None)
    if pool is None and (pool := _take_prewarmed()) is not None:
        _local.pool, _local.backend = pool, None  # the warm-up's task time is forgotten
    if pool is None or pool.memory_limit_mib != memory_limit_mib:
        if pool is not None:
            pool.close()
        pool = _local.pool = WorkerPool(1, memory_limit_mib, poll_s=CHUNK_POLL_S)
    wire: list[WireTask] = pickle.loads(sent)
    if wire and getattr(_local, "backend", None) != wire[0][0]:  # a chunk is of one backend
        pool.forget_task_times()  # else another backend's times would size its queue
        _local.backend = wire[0][0]
    deadline = math.inf if budget_s is None else time.perf_counter() + budget_s

    def tasks() -> Iterator[Task]:  # drawn by the pool as its solver process needs them
        for i, (spec, box, cells, limit, timeout) in enumerate(wire):
            if i and time.perf_counter() >= deadline:
                return
            yield Task(spec, Puzzle.unchecked(box, tuple(cells)), limit, timeout, i)  # checked

    host = socket.gethostname()
    outcomes: list[tuple[Any, ...] | None] = [None] * len(wire)  # None: not started
    for task, outcome in pool.run(tasks(), wire=True):  # sent on as the solver process sent it
        sent_on = outcome.wire() if type(outcome.status) is Status else outcome  # a kill's
        outcomes[task.tag] = (*sent_on[:-1], host)  # the host, last of the fields
    return pickle.dumps(outcomes, pickle.HIGHEST_PROTOCOL)
