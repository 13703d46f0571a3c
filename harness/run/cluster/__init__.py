"""Solving on a Dask cluster (``harness run --cluster``): the same rows, limits and checks.

What stays in the harness process: planning, the independent check of every answer
(:func:`harness.check.judge.judge`), the cross-check, the resume keys and the CSV writer. Only
the harness process writes the CSV. What goes to the cluster: *chunks*, each a list of
tasks of one backend, sized to about a second of solving from the times seen so far and
smaller and smaller once the end of the work is in sight, each with a time budget
(:class:`~harness.run.cluster.chunks.Chunker`), through a bounded window of futures. Rows are
written as chunks come back. The Dask client (and a ``local:N`` cluster) lives in a process
the harness forks when the run starts (:class:`~harness.run.cluster.client.ClusterConnection`):
the harness never imports Dask, and chunks and their outcomes cross a pipe, pickled once
each way.

How a Dask worker runs a chunk: in the harness's own :class:`~harness.run.worker.WorkerPool`
(one solver process per Dask worker thread, kept warm across chunks), so every solve still
runs in an isolated process with the kill-based timeout and memory limits of a local run.
Dask starts its worker processes as daemons by default, and a daemon cannot start child
processes: the harness sets ``distributed.worker.daemon: False`` for the clusters it
starts (``local:N``), and refuses workers started by hand without it, saying what to set.

Faults. A Dask worker that dies mid-chunk returns nothing for that chunk: the scheduler
runs the chunk again elsewhere (``distributed.scheduler.allowed-failures`` times), and its
rows are written once, when it comes back. A chunk that kills every worker it lands on
gives one ERROR row per task, naming the failure. A Dask worker that stops answering
(a stopped process, a frozen host) without dying: once it has been silent for longer than
the run's timeout, the chunks it holds are sent again to the other workers, and it gets no
more (:mod:`~harness.run.cluster.relay`); a task held by silent workers three times is ERROR.
TIMEOUT stays for solves that overran, as the worker that ran them saw. A scheduler that does
not answer within :data:`~harness.run.cluster.client.CONNECT_TIMEOUT_S` is one line and exit 2.

The modules, one side each: :mod:`~harness.run.cluster.target` (where to run, the error, the
import of Dask), :mod:`~harness.run.cluster.client` (the process holding the Dask client, and
the harness's connection to it), :mod:`~harness.run.cluster.relay` (in that process: chunks
to the cluster and back), :mod:`~harness.run.cluster.dask_worker` (what runs on a Dask
worker) and :mod:`~harness.run.cluster.chunks` (how the tasks are cut and sent). The runner
(:func:`harness.run.runner.executor`) uses :func:`connect` and :class:`ClusterPool`.
"""

from harness.run.cluster.chunks import ClusterPool
from harness.run.cluster.client import (
    ClusterConnection,
    check_workers,
    connect,
    hosts_meta,
    quiet_dask_logs,
)
from harness.run.cluster.dask_worker import host_environment, run_chunk, worker_facts
from harness.run.cluster.target import INSTALL_HINT, ClusterError, ClusterTarget

__all__ = [
    "INSTALL_HINT",
    "ClusterConnection",
    "ClusterError",
    "ClusterPool",
    "ClusterTarget",
    "check_workers",
    "connect",
    "host_environment",
    "hosts_meta",
    "quiet_dask_logs",
    "run_chunk",
    "worker_facts",
]
