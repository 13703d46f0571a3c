"""Whether ``harness run --against`` leans one way when nothing changed.

    python benchmarks/bench_against.py [--runs 10] [-b mrv -b norvig] [--rev HEAD]
        [--repeat 1] [--load 0] [--dataset datasets/hard95.txt]

Runs ``harness run -q -b ... --against REV --repeat R DATASET`` ``--runs`` times from this
checkout (with REV a commit whose backends are the checkout's, the two sides of each pair
run the same code), each with a seed of its own, ``--load`` busy loops running meanwhile.
For each run and backend it prints the median of the per-puzzle ratios new / old (each
puzzle's median over repeats) on the CPU clock (``solve_cpu_s``) and on the wall clock
(``solve_s``), with the gate's one-sided Wilcoxon p-values (new slower, new faster), and
the exit code of ``harness check RUN.csv``. At the end: how far the ratios went from 1.00,
and how many runs were significant either way (p < ``--alpha``) against the number a test
at that level lets through by chance.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402 - after the project root is on the path, as the harness

from harness.gate.paired import ratio_statistics  # noqa: E402 - the gate's own statistics

#: The command line's entry point, run from this checkout.
ENTRY = "from harness.cli.entry import main; main()"
CLOCKS = {"cpu": "solve_cpu_s", "wall": "solve_s"}


def harness(*args: str) -> subprocess.CompletedProcess[str]:
    """``harness ARGS`` from this checkout, in a subprocess."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    command = [sys.executable, "-c", ENTRY, *args]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def ratios(csv: Path, pairs: dict[str, str]) -> dict[str, dict[str, tuple[float, ...]]]:
    """Per new backend, per clock: the gate's (median ratio, low, high, p slower, p
    faster) over the puzzles both sides answered."""
    rows = pd.read_csv(csv)
    rows = rows[rows["status"].isin(["SOLVED", "UNSAT"])]
    found: dict[str, dict[str, tuple[float, ...]]] = {}
    for old, new in pairs.items():
        found[new] = {}
        for name, column in CLOCKS.items():
            per = rows.groupby(["backend", "dataset", "line"])[column].median()
            both = pd.concat([per.loc[old], per.loc[new]], axis=1, join="inner").dropna()
            found[new][name] = ratio_statistics(both.iloc[:, 0], both.iloc[:, 1])
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("-b", "--backend", action="append", dest="backends")
    parser.add_argument("--rev", default="HEAD")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--load", type=int, default=0, help="busy loops running meanwhile")
    parser.add_argument("--alpha", type=float, default=0.01)
    parser.add_argument("--dataset", type=Path, default=ROOT / "datasets" / "hard95.txt")
    args = parser.parse_args()
    backends = args.backends or ["mrv", "norvig"]
    chosen = [arg for spec in backends for arg in ("-b", spec)]
    options = [*chosen, "--against", args.rev, "--repeat", str(args.repeat)]
    shown = shlex.join(["harness", "run", "-q", *options, str(args.dataset)])
    print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {cpu_model()}, {os.cpu_count()} CPUs")
    print(f"{args.runs} runs of: {shown} (--seed k, run k), {args.load} busy loops")
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    busy = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
        for _ in range(args.load)
    ]
    table: list[tuple[int, str, str, tuple[float, ...], int]] = []
    try:
        with tempfile.TemporaryDirectory() as folder:
            print(
                f"{'run':>3} {'backend':<8} {'clock':<5} {'ratio':>6} {'interval':>16} "
                f"{'p slower':>9} {'p faster':>9} {'check':>5}"
            )
            for k in range(args.runs):
                out = Path(folder) / f"run{k}.csv"
                started = time.perf_counter()
                done = harness(
                    "run", "-q", *options, "--seed", str(k), "--out", str(out), str(args.dataset)
                )
                if done.returncode not in (0, 1):
                    sys.exit(f"harness run failed ({done.returncode}):\n{done.stdout}{done.stderr}")
                checked = harness("check", str(out)).returncode
                pairs = {f"{spec}@{args.rev}": spec for spec in backends}
                for new, clocks in ratios(out, pairs).items():
                    for clock, figures in clocks.items():
                        table.append((k, new, clock, figures, checked))
                        median, low, high, slower, faster = figures
                        print(
                            f"{k:>3} {new:<8} {clock:<5} {median:>6.4f} "
                            f"[{low:.3f}, {high:.3f}] {slower:>9.3g} {faster:>9.3g} "
                            f"{checked:>5}",
                            flush=True,
                        )
                print(f"    ({time.perf_counter() - started:.1f} s)", flush=True)
    finally:
        for proc in busy:
            proc.kill()
            proc.wait()
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    tests = 0
    for new in backends:
        for clock in CLOCKS:
            figures = [f for _, n, c, f, _ in table if n == new and c == clock]
            medians = [f[0] for f in figures]
            significant = sum(f[3] < args.alpha or f[4] < args.alpha for f in figures)
            tests += len(figures)
            within = sum(abs(m - 1) <= 0.01 for m in medians)
            print(
                f"{new} {clock}: ratios {min(medians):.4f} to {max(medians):.4f}, farthest "
                f"from 1 by {max(abs(m - 1) for m in medians):.2%}, within 1 % in {within} of "
                f"{len(medians)}; significant either way in {significant} of {len(figures)}"
            )
    allowed = 2 * args.alpha * tests
    holds = len({k for k, *_, checked in table if checked == 0})
    print(f"expected by chance at alpha {args.alpha:g}, either way: {allowed:.2f} of {tests}")
    print(f"harness check held (exit 0) in {holds} of {args.runs} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
