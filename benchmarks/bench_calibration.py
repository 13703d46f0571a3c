"""How steady the run's calibration is: the fastest of N runs of its workload, by N.

    python benchmarks/bench_calibration.py [--processes 150] [--runs 31]

Each of ``--processes`` fresh interpreters imports the command line (as a run has before it
calibrates), then times ``--runs`` runs of the calibration workload, each as ``calibrate(1)``.
The fastest of the first N is what ``calibrate(N)`` would have recorded in that process. For
each N it prints the median over the processes, the quartiles' and the 5th to 95th
percentiles' spread as a share of the median, and, within each process, the fastest of N
over the fastest of all ``--runs``: what fewer runs add to the figure the gate divides by.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE = """
import json, sys
import harness.cli.run
from harness.results.calibration import calibrate
print(json.dumps([calibrate(1) for _ in range(int(sys.argv[1]))]))
"""


def series(processes: int, runs: int) -> list[list[float]]:
    """Each process's ``runs`` workload times, in seconds, in the order they ran."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    found = []
    for _ in range(processes):
        command = [sys.executable, "-c", PROBE, str(runs)]
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        found.append(json.loads(done.stdout))
    return found


def percentile(ordered: list[float], share: float) -> float:
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--processes", type=int, default=150)
    parser.add_argument("--runs", type=int, default=31)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    times = series(args.processes, args.runs)
    print(
        f"{args.processes} processes, {args.runs} runs each; load average {load_before:.2f} "
        f"before, {os.getloadavg()[0]:.2f} after"
    )
    print(f"{'N':>3} {'median ms':>10} {'IQR':>6} {'p5-p95':>7} {'/ all: median':>14} {'p95':>6}")
    counts = sorted({n for n in (5, 11, 21, args.runs) if n <= args.runs})
    for n in counts:
        fastest = sorted(min(t[:n]) for t in times)
        q1, median, q3 = statistics.quantiles(fastest, n=4)
        spread = (percentile(fastest, 0.95) - percentile(fastest, 0.05)) / median
        added = sorted(min(t[:n]) / min(t) for t in times)
        print(
            f"{n:>3} {median * 1e3:>10.4f} {(q3 - q1) / median:>6.1%} {spread:>7.1%} "
            f"{statistics.median(added):>14.4f} {percentile(added, 0.95):>6.4f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
