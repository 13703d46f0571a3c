"""The conditions a run was measured in: a fixed probe timed in the workers through the run.

A probe is a fixed workload of a few milliseconds (:func:`probe_workload`), long enough for
the scheduler to slice it when other processes want the CPU: a workload shorter than one
slice runs whole and never shows the load that slows a 10 ms solve. Each sample records the
probe's wall time, its CPU time (so the share of a CPU the worker had: CPU / wall), and the
machine's run queue at that moment (runnable tasks, from ``/proc/loadavg``) with its 1-minute
load average.

Workers take a sample between tasks, every :data:`PROBE_EVERY_S` (:func:`sampler`), and
append it as one line to a file the run opened (:func:`recording`; forked workers inherit
its descriptor); a line is written with one ``write`` on an ``O_APPEND`` descriptor, so
several workers' lines never mix. At the end the run keeps their summary
(:func:`summarize`) in its ``.meta.json`` under ``conditions``; :mod:`harness.gate.conditions`
compares two runs' summaries before their times are judged.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from harness.results.calibration import queens

#: Seconds between two samples in one worker (taken between tasks, never during one).
PROBE_EVERY_S = 2.0
#: Below this share of a CPU (probe CPU time / wall time) a sample counts as time-sliced.
SLICED_BELOW = 0.9
#: What :func:`probe_workload` runs, recorded so that runs compare like with like.
PROBE_WORKLOAD = "9-queens by bit operations"

#: The descriptor samples are appended to: set in the harness process by :func:`recording`
#: and inherited by the workers it forks; None where nothing records (a worker of a test's
#: pool, a Dask worker).
_sink: int | None = None


def probe_workload() -> int:
    """The fixed workload: 9-queens, a few milliseconds of interpreter work."""
    return queens(9)


def run_queue() -> tuple[int | None, float | None]:
    """The machine's runnable tasks now (``/proc/loadavg``'s running count, this process
    included) and its 1-minute load average; None where the system does not say."""
    running = None
    with contextlib.suppress(OSError, ValueError, IndexError), open("/proc/loadavg", "rb") as f:
        running = int(f.read().split()[3].split(b"/")[0])
    try:
        load = os.getloadavg()[0]
    except (OSError, AttributeError):
        load = None
    return running, load


def sample() -> tuple[float, float, int | None, float | None]:
    """One probe: (wall seconds, CPU seconds, run queue, 1-minute load average)."""
    running, load = run_queue()
    c0, w0 = time.process_time(), time.perf_counter()
    probe_workload()
    w1, c1 = time.perf_counter(), time.process_time()
    return w1 - w0, c1 - c0, running, load


def _write(fd: int) -> None:
    wall, cpu, running, load = sample()
    line = f"{wall:.7f} {cpu:.7f} {'-' if running is None else running} "
    line += f"{'-' if load is None else round(load, 2)}\n"
    with contextlib.suppress(OSError):  # a full disk costs the samples, never the run
        os.write(fd, line.encode())


def sampler() -> Callable[[float], float]:
    """For a worker's task loop: ``due = probe(now)`` takes a sample when ``now`` has passed
    the previous ``due`` and returns the next time one is due. Where nothing records, it
    never samples (and is due never)."""
    fd = _sink
    if fd is None:
        return lambda now: float("inf")

    def probe(now: float) -> float:
        _write(fd)
        return time.perf_counter() + PROBE_EVERY_S

    return probe


def parse(text: str) -> list[tuple[float, float, int | None, float | None]]:
    """The samples of a sample file's text; a malformed line is skipped."""
    samples = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) != 4:
            continue
        try:
            wall, cpu = float(parts[0]), float(parts[1])
            running = None if parts[2] == "-" else int(parts[2])
            load = None if parts[3] == "-" else float(parts[3])
        except ValueError:
            continue
        samples.append((wall, cpu, running, load))
    return samples


def _quartiles(values: Sequence[float], digits: int) -> dict[str, float]:
    ordered = sorted(values)
    if len(ordered) >= 2:
        q1, median, q3 = statistics.quantiles(ordered, n=4, method="inclusive")
    else:
        q1 = median = q3 = ordered[0]
    return {
        "min": round(ordered[0], digits),
        "q1": round(q1, digits),
        "median": round(median, digits),
        "q3": round(q3, digits),
        "max": round(ordered[-1], digits),
    }


def summarize(samples: Sequence[tuple[float, float, int | None, float | None]]) -> dict[str, Any]:
    """What the metadata keeps of a run's samples: how many, the probe's wall time (ms) and
    share of a CPU as quartiles, the fraction time-sliced, and the run queue and load."""
    summary: dict[str, Any] = {
        "workload": PROBE_WORKLOAD,
        "every_s": PROBE_EVERY_S,
        "samples": len(samples),
        "usable_cpus": usable_cpus(),
    }
    if not samples:
        return summary
    shares = [min(1.0, cpu / wall) if wall > 0 else 1.0 for wall, cpu, _, _ in samples]
    queues = [q for _, _, q, _ in samples if q is not None]
    loads = [x for _, _, _, x in samples if x is not None]
    summary["wall_ms"] = _quartiles([w * 1000 for w, _, _, _ in samples], 3)
    summary["cpu_ms"] = _quartiles([c * 1000 for _, c, _, _ in samples], 3)
    summary["cpu_share"] = _quartiles(shares, 3)
    summary["sliced"] = round(sum(s < SLICED_BELOW for s in shares) / len(shares), 3)
    if queues:
        summary["run_queue"] = {"median": statistics.median(queues), "max": max(queues)}
    if loads:
        summary["loadavg_1m"] = {"median": statistics.median(loads), "max": max(loads)}
    return summary


def usable_cpus() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


@contextlib.contextmanager
def recording() -> Iterator[Callable[[], dict[str, Any]]]:
    """Record the conditions of what runs inside: workers forked meanwhile append samples
    to a file opened here (unlinked at once, kept by its descriptor); the value yielded
    returns their summary (see :func:`summarize`). This process takes one sample itself at
    the start, so that no run has none."""
    global _sink
    try:
        made, path = tempfile.mkstemp(prefix="sudoku-harness-conditions-")
    except OSError:  # no temporary directory to write in: the run goes on, unrecorded
        yield lambda: summarize([])
        return
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND)
    finally:
        os.unlink(path)
        os.close(made)
    previous, _sink = _sink, fd
    try:
        _write(fd)

        def summary() -> dict[str, Any]:
            text = os.pread(fd, os.fstat(fd).st_size, 0).decode(errors="replace")
            return summarize(parse(text))

        yield summary
    finally:
        _sink = previous
        os.close(fd)
