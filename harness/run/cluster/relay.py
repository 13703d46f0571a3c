"""In the process holding the Dask client: the chunks the harness sends go to the cluster,
and each comes back to the harness as it finishes, or is given up once its worker falls
silent.

A Dask worker whose process is stopped (SIGSTOP, a frozen host) holds its chunks without
dying: the scheduler would wait minutes for its heartbeats
(``distributed.scheduler.worker-ttl``) before it ran them elsewhere, and a finished chunk's
outcomes, kept on that worker, could not be fetched. So each chunk's outcomes are fetched
in a thread of their own, and while chunks are in flight the relay looks at every worker's
last heartbeat each :data:`CHECK_S`: a chunk held by a worker silent for longer than its
tasks' limit (at least :data:`SILENT_FLOOR_S`) is given up: the harness sends its tasks
again, to the other workers (a worker's stall says nothing of the solves it held: see
:meth:`harness.run.cluster.chunks._Flight.stalled`), and that worker gets no more chunks.
"""

from __future__ import annotations

import contextlib
import queue
import sys
import threading
import time
from collections.abc import Collection
from multiprocessing.connection import Connection
from typing import Any

from harness.run.cluster.dask_worker import run_chunk
from harness.run.cluster.target import ClusterError

#: Seconds between two looks at the workers' heartbeats while chunks are in flight.
CHECK_S = 1.0
#: The least silence after which a worker holding chunks is given up: several of the
#: heartbeats a Dask worker sends every 0.5-2 s (by the cluster's size).
SILENT_FLOOR_S = 5.0


def describe(exc: BaseException) -> str:
    """``exc`` in one line: its type, and the first line of what it says."""
    return ": ".join(filter(None, (type(exc).__name__, str(exc).partition("\n")[0])))


class Heartbeats:
    """How long each worker has been silent, as this process sees it: the scheduler's
    ``last_seen`` of a worker is compared with itself from one look to the next, never with
    this host's clock (the scheduler's may differ)."""

    def __init__(self) -> None:
        #: By worker address: its last heartbeat as the scheduler gave it, and when (on
        #: this process's monotonic clock) it was first seen with that value.
        self._seen: dict[str, tuple[float, float]] = {}

    def silence(self, workers: dict[str, dict[str, Any]], now: float) -> dict[str, float]:
        """Seconds each of ``workers`` (the scheduler's facts by address) has sent no
        heartbeat, as far as this process has seen."""
        silent = {}
        for address, facts in workers.items():
            last = facts.get("last_seen")
            known = self._seen.get(address)
            if known is None or known[0] != last:
                known = self._seen[address] = (last, now)
            silent[address] = now - known[1]
        return silent


class Relay:
    """Submits each chunk the harness sends (``("submit", key, pickled tasks, memory
    limit, budget, limit)``, where ``limit`` is the seconds its slowest task may take before
    it is killed; ``("cancel", key)`` withdraws one) and sends back ``(kind, key, value)``
    for each (see :meth:`finished`) until the harness closes its end of the pipe. Only
    :meth:`run`'s thread writes to the pipe."""

    def __init__(self, client: Any, pipe: Connection) -> None:
        self.client, self.pipe = client, pipe
        #: What to send the harness, from the threads fetching outcomes; None: the harness
        #: closed its end.
        self.outbox: queue.SimpleQueue[tuple[str, int, Any] | None] = queue.SimpleQueue()
        self.futures: dict[int, Any] = {}  # in flight (not sent back yet), by key
        self.limits: dict[int, float] = {}  # seconds of silence each chunk in flight allows
        self.silent_workers: set[str] = set()  # given up: no more chunks for them
        self.heartbeats = Heartbeats()

    def run(self) -> None:
        """Relay until the harness closes its end of the pipe."""
        threading.Thread(target=self.read, name="chunks from the harness", daemon=True).start()
        checked = time.monotonic()
        while True:
            with contextlib.suppress(queue.Empty):  # none finished: time for a look
                message = self.outbox.get(timeout=CHECK_S)
                if message is None:
                    return
                self._send_back(message)
            if self.futures and time.monotonic() - checked >= CHECK_S:
                checked = time.monotonic()
                self.give_up_silent(checked)

    def _send_back(self, message: tuple[str, int, Any]) -> None:
        """Send the harness what became of a chunk, unless it was withdrawn already."""
        key = message[1]
        if self.futures.pop(key, None) is not None:
            self.limits.pop(key, None)
            self.pipe.send(message)

    def read(self) -> None:
        """Take the harness's messages. Ends at the harness's end of the pipe, or when the
        client cannot go on: the harness then sees this process end."""
        with contextlib.suppress(Exception):
            while True:
                message = self.pipe.recv()
                if message[0] == "submit":
                    self.submit(*message[1:])
                elif (future := self.futures.pop(message[1], None)) is not None:
                    self.limits.pop(message[1], None)
                    future.cancel()
        self.outbox.put(None)

    def submit(
        self, key: int, sent: bytes, memory_limit_mib: float | None, budget_s: float, limit_s: float
    ) -> None:
        """Submit a chunk, to a worker not given up; its outcomes are fetched, once it is
        done, in a thread of their own (from a worker stopped meanwhile, never)."""
        restrict = {}
        if self.silent_workers:  # (if every worker is, the run stops: see give_up_silent)
            workers = self.client.scheduler_info(n_workers=-1)["workers"]
            alive = [address for address in workers if address not in self.silent_workers]
            restrict = {"workers": alive or None}
        future = self.client.submit(
            run_chunk, sent, memory_limit_mib, budget_s, pure=False, **restrict
        )
        self.limits[key] = max(SILENT_FLOOR_S, limit_s)
        self.futures[key] = future

        def fetch() -> None:
            self.outbox.put(self.finished(key, future))

        future.add_done_callback(
            lambda _: threading.Thread(target=fetch, name="chunk outcomes", daemon=True).start()
        )

    def finished(self, key: int, future: Any) -> tuple[str, int, Any]:
        """A finished chunk for the harness: ``("done", key, pickled outcomes)``;
        ``("killed", key, message)`` when the workers running it died (its rows are ERROR);
        ``("failed", key, message)`` when the cluster failed otherwise (the run stops)."""
        killed = sys.modules["distributed"].KilledWorker  # imported with the client
        try:
            return ("done", key, future.result())
        except killed as exc:
            return ("killed", key, f"the Dask workers running this chunk died ({exc})")
        except ClusterError as exc:
            return ("failed", key, str(exc))
        except Exception as exc:  # the cluster's own failure (lost scheduler, ...)
            return ("failed", key, f"the Dask cluster failed a chunk: {describe(exc)}")

    def give_up_silent(self, now: float) -> None:
        """Send ``("silent", key, message)`` for each chunk held by a worker silent for
        longer than the chunk allows (as seen at ``now``, on the monotonic clock), withdraw
        it, and send that worker no more chunks; ``("failed", None, message)`` when every
        worker is given up."""
        silence = self.heartbeats.silence(self.client.scheduler_info(n_workers=-1)["workers"], now)
        stale = [address for address, seconds in silence.items() if seconds >= SILENT_FLOOR_S]
        if not stale:
            return
        for key, address in self._held_by(stale).items():
            if silence[address] < self.limits.get(key, float("inf")):
                continue
            self.silent_workers.add(address)
            self.limits.pop(key, None)
            future = self.futures.pop(key, None)
            if future is not None:
                future.cancel()
                message = f"no answer: the Dask worker {address} holding this chunk "
                message += f"was silent for {silence[address]:.0f} s"
                self.pipe.send(("silent", key, message))
        if self.silent_workers and self.silent_workers >= set(silence):
            self.pipe.send(("failed", None, "every Dask worker of the cluster stopped answering"))

    def _held_by(self, workers: Collection[str]) -> dict[int, str]:
        """The chunks in flight that ``workers`` hold, by key, with the worker holding each:
        running or queued there, or finished there and not fetched yet."""
        futures = dict(self.futures)
        by_future = {future.key: key for key, future in futures.items()}
        held = {
            by_future[name]: address
            for address, names in self.client.processing(list(workers)).items()
            for name in names
            if name in by_future
        }
        done = [future for future in futures.values() if future.done()]
        for name, where in (self.client.who_has(done) if done else {}).items():
            if name in by_future and where and set(where) <= set(workers):
                held[by_future[name]] = where[0]
        return held
