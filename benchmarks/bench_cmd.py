"""The cost of the ``cmd:`` line protocol: its round-trip floor, and the harness around it.

    python benchmarks/bench_cmd.py [--count 4000] [--solves 20000] [--rounds 3]

An echo solver answers every puzzle ``UNKNOWN -`` at once, so what is measured is the
protocol alone. Two echo solvers, in Python and (when a C compiler is found) in C, show how
much of the floor is the solver's own interpreter.

* round trip: :class:`backends.cmd_backend.CmdBackend`'s ``solve()`` called in this process,
  SOLVES times: write ``<puzzle> <limit>``, read the answer, parse it (median and 90th
  percentile, us). This is the floor under every ``cmd:`` solve time (the target:
  at most 20 us);
* harness per puzzle: ``harness run -q -b cmd:ECHO`` on COUNT distinct 9x9 puzzles and on
  COUNT/5 (alternating, ROUNDS times each); the slope of the median wall times is the whole
  cost of one more puzzle (hand-off to the worker, the round trip, checking, the CSV row),
  and "around" is that minus the median round trip the rows recorded.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_overhead import build
from common import DATASETS, harness_run

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from backends.cmd_backend import CmdBackend  # noqa: E402 -- after the project is on the path
from backends.puzzle import Puzzle  # noqa: E402

ECHO_PY = """import sys
print("READY name=echo", flush=True)
for line in sys.stdin:
    sys.stdout.write("UNKNOWN -\\n")
    sys.stdout.flush()
"""
ECHO_C = r"""#include <stdio.h>
int main(void) {
    char line[1024];
    printf("READY name=echo-c\n");
    fflush(stdout);
    while (fgets(line, sizeof line, stdin)) { fputs("UNKNOWN -\n", stdout); fflush(stdout); }
    return 0;
}
"""


def echo_solvers(folder: Path) -> dict[str, str]:
    """The echo solvers' command lines by name: Python always, C when it compiles."""
    script = folder / "echo.py"
    script.write_text(ECHO_PY)
    commands = {"python echo": f"{sys.executable} {script}"}
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler:
        (folder / "echo.c").write_text(ECHO_C)
        built = subprocess.run(
            [compiler, "-O2", "-o", str(folder / "echo"), str(folder / "echo.c")],
            capture_output=True,
        )
        if built.returncode == 0:
            commands["C echo"] = str(folder / "echo")
    return commands


def round_trips(command: str, puzzles: list[Puzzle], solves: int) -> list[float]:
    """Seconds of each ``solve()`` against the solver ``command``, after 200 unmeasured."""
    backend = CmdBackend(command=command)
    encoded = [backend.encode(p) for p in puzzles]
    times = []
    try:
        for i in range(solves + 200):
            start = time.perf_counter()
            backend.solve(encoded[i % len(encoded)], limit=1, time_limit=10.0)
            times.append(time.perf_counter() - start)
    finally:
        backend.close()
    return times[200:]


def timed_run(spec: str, data: Path, out: Path) -> tuple[float, float]:
    """One `harness run`: (wall seconds, median solve_s of its rows)."""
    wall, rows = harness_run(spec, data, out)
    if not (rows.status == "UNKNOWN").all():
        sys.exit(f"{spec}: not every row is UNKNOWN: {rows.status.value_counts().to_dict()}")
    return wall, float(rows.solve_s.median())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=4000, help="puzzles per harness run")
    parser.add_argument("--solves", type=int, default=20_000, help="round trips measured")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if not DATASETS.is_dir():
        print(f"public datasets absent: {DATASETS} not found", file=sys.stderr)
        return 2
    texts = build(args.count, seed=0)
    puzzles = [Puzzle.parse(t) for t in texts[:1000]]
    small = args.count // 5
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        big, few = folder / "big.txt", folder / "small.txt"
        big.write_text("\n".join(texts) + "\n")
        few.write_text("\n".join(texts[:small]) + "\n")
        print(f"{args.solves} round trips; harness runs of {args.count} and {small} puzzles, ")
        print(f"{args.rounds} rounds each, jobs 1\n")
        print(f"{'solver':12} {'round trip us':>14} {'p90 us':>8} {'harness us/puzzle':>18} "
              f"{'around us':>10}")  # fmt: skip
        for name, command in echo_solvers(folder).items():
            times = round_trips(command, puzzles, args.solves)
            trip = statistics.median(times)
            p90 = statistics.quantiles(times, n=10)[-1]
            runs: dict[str, list[tuple[float, float]]] = {"big": [], "small": []}
            for _ in range(args.rounds):  # alternate, so drift of the machine hits both
                for size, data in (("big", big), ("small", few)):
                    runs[size].append(timed_run(f"cmd:{command}", data, folder / "run.csv"))
            wall = statistics.median(w for w, _ in runs["big"])
            wall_small = statistics.median(w for w, _ in runs["small"])
            recorded = statistics.median(s for _, s in runs["big"])
            per_puzzle = (wall - wall_small) / (args.count - small)
            print(
                f"{name:12} {1e6 * trip:14.1f} {1e6 * p90:8.1f} {1e6 * per_puzzle:18.1f} "
                f"{1e6 * (per_puzzle - recorded):10.1f}"
            )
    print(
        "\nround trip: solve() in this process (target <= 20 us); harness us/puzzle: the slope"
        "\nof `harness run` wall time per puzzle; around: that minus the rows' median solve_s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
