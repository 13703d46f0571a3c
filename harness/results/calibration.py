"""The machine's speed: a short fixed workload timed at a run's start and end.

The gate divides solve times by each run's calibration, so that runs on a faster or slower
machine stay comparable (:func:`harness.gate.time_judgement`). ``end_s`` is null for a run
shorter than :data:`CALIBRATE_END_AFTER_S`: the start's stands for the whole of it.

The workload is timed on the CPU time of the thread that runs it, as the solves are judged
on theirs: a calibration on the wall clock, taken while other jobs held the CPUs, once read
x1.56 where the solves' CPU time had moved x1.14, and turned that into a speed-up. A clock
speed or a cache that other jobs change still moves it, as it moves the solves.
"""

from __future__ import annotations

import time
from typing import Any


def queens(n: int, row: int = 0, cols: int = 0, left: int = 0, right: int = 0) -> int:
    """Solutions of the n-queens puzzle: recursion and bit operations, as in a solver."""
    if row == n:
        return 1
    count = 0
    free = ~(cols | left | right) & ((1 << n) - 1)
    while free:
        bit = free & -free
        free ^= bit
        count += queens(n, row + 1, cols | bit, (left | bit) << 1, (right | bit) >> 1)
    return count


def _calibration_workload() -> int:
    """The fixed workload: 8-queens and some dictionary updates."""
    counts: dict[int, int] = {}
    for i in range(2000):
        counts[i % 81] = counts.get(i % 81, 0) + (i & 7)
    return queens(8) + sum(counts.values())


#: A run this long (seconds) or longer is calibrated at its end too, not only at its start.
CALIBRATE_END_AFTER_S = 1.0
#: Two calibrations this close (either way) are one speed: the gate compares times as
#: measured (:func:`harness.gate.baseline.time_judgement`). Runs of one machine within an
#: hour read 0.434 to 0.462 ms (2026-12-07): dividing by such a ratio adds noise, not
#: fairness.
CALIBRATION_NOISE = 1.05
#: How many times :func:`calibrate` runs the workload.
CALIBRATION_REPEATS = 11
#: What :func:`calibrate` times, recorded in the metadata so that runs compare like with like.
CALIBRATION_WORKLOAD = (
    f"8-queens + 2000 dict updates, fastest of {CALIBRATION_REPEATS}, thread CPU time"
)
#: The recorded workloads a run's calibration is compared with: this one, and the same
#: workload timed on the wall clock, the fastest of 11 or of 31 (which earlier runs
#: recorded). On a machine with a CPU to spare, the fastest wall time of a workload this short
#: is its CPU time, and the fastest of 11 and of 31 agree within the noise of either
#: (docs/benchmarks.md gives their spread), far inside the gate's time ratio, so results
#: written before and after compare.
COMPARABLE_WORKLOADS = frozenset(
    {
        CALIBRATION_WORKLOAD,
        "8-queens + 2000 dict updates, fastest of 11",
        "8-queens + 2000 dict updates, fastest of 31",
    }
)


def calibrate(repeats: int = CALIBRATION_REPEATS) -> float:
    """CPU seconds of the fixed calibration workload in this thread: the fastest of
    ``repeats``. On a shared machine noise only ever adds time, so the fastest run is the
    steadiest measure of the machine's speed; a median moves with load."""
    times = []
    for _ in range(repeats):
        start = time.thread_time()
        _calibration_workload()
        times.append(time.thread_time() - start)
    return min(times)


def calibration_of(meta: dict[str, Any]) -> float | None:
    """The seconds a run's calibration took (the faster of its start and end, for the
    reason :func:`calibrate` gives), or None if absent or of a workload that does not
    compare (see :data:`COMPARABLE_WORKLOADS`)."""
    entry = meta.get("calibration")
    if not isinstance(entry, dict) or entry.get("workload") not in COMPARABLE_WORKLOADS:
        return None
    points = [entry.get(k) for k in ("start_s", "end_s")]
    values = [float(v) for v in points if isinstance(v, (int, float)) and v > 0]
    return min(values) if values else None
