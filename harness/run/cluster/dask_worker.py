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
from harness.results import provenance
from harness.run.cluster.target import DAEMON_SETTING, ClusterError
from harness.run.worker import Task, WorkerPool
from harness.run.worker.wire import WireTask

#: Seconds between a chunk's pool's looks at its solver process's answers while it has
#: tasks to hand out (more seldom than a local run's pool, whose answers become rows). The
#: pool keeps some solving queued there, and a chunk's last answers are waited for, so
#: looking less often loses no solving; it leaves the cores to the solvers, which on a
#: machine whose every core solves share them with the Dask workers.
CHUNK_POLL_S = 0.01


def worker_facts(environment: bool = True, packages: tuple[str, ...] = ()) -> dict[str, Any]:
    """Run on each Dask worker: whether it may start processes, its host and (unless
    ``environment`` is False) its environment, with the versions of ``packages``."""
    facts = {"daemon": multiprocessing.current_process().daemon, "host": socket.gethostname()}
    if environment:
        facts["environment"] = host_environment(provenance.environment(packages, git=False))
    return facts


#: What makes one host's timings comparable with another's, from
#: :func:`provenance.environment` (not the git state of its working directory: the harness
#: records its own).
HOST_FACTS = ("project_version", "python", "packages", "machine")


def host_environment(environment: dict[str, Any]) -> dict[str, Any]:
    """The :data:`HOST_FACTS` of ``environment`` (a :func:`provenance.environment`)."""
    return {key: environment[key] for key in HOST_FACTS}


_local = threading.local()


def _retire() -> None:
    """Close this thread's pool, if any."""
    pool = getattr(_local, "pool", None)
    if pool is not None:
        pool.close()
    _local.pool = None


def run_chunk(sent: bytes, memory_limit_mib: float | None, budget_s: float | None = None) -> bytes:
    """Run on a Dask worker: solve the pickled tasks in this thread's warm pool; their
    outcomes, in order and naming this host, pickled.

    With ``budget_s``, no task but the first is handed to the solver process once
    ``budget_s`` seconds have passed since the chunk came: the outcomes of the tasks not
    handed are None, for the harness to send again. The pool keeps about
    :data:`~harness.run.worker.pool.SOLO_AHEAD_S` of tasks queued at its solver process, so a
    chunk may run that much past its budget.

    Both cross the cluster in the form they take on the worker pool's pipes (see
    :mod:`harness.run.worker.wire`): plain tuples, digits as bytes, here pickled into one
    ``bytes`` each way. Dask would serialize a list item by item, in the worker's event
    loop, and Task and Outcome objects cost far more to pickle than their plain tuples.
    """
    if multiprocessing.current_process().daemon:
        raise ClusterError(f"this Dask worker is daemonic; start it with {DAEMON_SETTING}")
    pool = getattr(_local, "pool", None)
    if pool is None or pool.memory_limit_mib != memory_limit_mib:
        _retire()
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
