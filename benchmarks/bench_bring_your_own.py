"""Benchmark the third-party backends beside the built-ins, through ``harness run``.

Runs ``harness run`` on Norvig's top95 once per solution limit (1 and 2), every backend in
the same run (the harness shuffles their order per puzzle, so a noisy shared machine hits
them alike), and prints one Markdown table: puzzles solved, the median and max of the solve
phase, the median encode phase, and the median of each backend's own effort counters. This
is the table of the README's "Bring your own solver" section.

    .venv/bin/python benchmarks/bench_bring_your_own.py [--timeout 5] [--dataset PATH]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import DEFAULT_DATASET, PROJECT

BACKENDS = (
    "pysat",
    "pysat:solver=glucose4",
    "pysat:solver=cadical195",
    "miniexact",
    "cryptosat",
    "z3",
    "pycosat",
    "cpsat",
    "dlx",
    "norvig",
)

#: Per backend name, the counters that say how hard it worked (medians are printed).
EFFORT = {
    "pysat": ("conflicts", "decisions", "propagations"),
    "z3": ("sat_conflicts", "sat_decisions"),
    "miniexact": ("columns", "rows"),
    "cryptosat": ("variables", "clauses"),
    "pycosat": ("variables", "clauses"),
    "cpsat": ("num_branches", "num_conflicts"),
    "dlx": ("nodes", "updates"),
    "norvig": ("nodes", "guesses"),
}


def run(dataset: Path, limit: int, timeout: float, out: Path) -> pd.DataFrame:
    specs = [arg for spec in BACKENDS for arg in ("-b", spec)]
    command = [sys.executable, "-c", "from harness.cli import main; main()", "run", "-q"]
    command += [*specs, "--timeout", str(timeout), "--limit-solutions", str(limit)]
    command += ["--out", str(out), str(dataset)]
    done = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"harness run failed ({done.returncode}): {done.stderr.strip()}")
    return pd.read_csv(out)


def effort(rows: pd.DataFrame, spec: str) -> str:
    names = EFFORT.get(spec.split(":", 1)[0], ())
    parts = [f"{name} {rows[name].median():.0f}" for name in names if rows[name].notna().any()]
    return ", ".join(parts)


def table(frames: dict[int, pd.DataFrame]) -> str:
    lines = [
        "| backend | solved | median ms | max ms | encode ms | median ms, limit 2 "
        "| effort (medians, limit 1) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    one, two = frames[1], frames[2]
    for spec in BACKENDS:
        rows = one[one["backend"] == spec]
        answered = rows[rows["status"].isin(["SOLVED", "UNSAT"])]
        rows2 = two[(two["backend"] == spec) & two["status"].isin(["SOLVED", "UNSAT"])]
        lines.append(
            f"| `{spec}` | {len(answered)}/{len(rows)} "
            f"| {answered['solve_s'].median() * 1000:.2f} | {answered['solve_s'].max() * 1000:.1f} "
            f"| {answered['encode_s'].median() * 1000:.2f} "
            f"| {rows2['solve_s'].median() * 1000:.2f} | {effort(answered, spec)} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--timeout", type=float, default=5.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        frames = {
            limit: run(args.dataset, limit, args.timeout, Path(folder) / f"limit{limit}.csv")
            for limit in (1, 2)
        }
    print(table(frames))


if __name__ == "__main__":
    main()
