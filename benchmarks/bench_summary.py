"""The summary tables of many rows: plain Python (what `harness run` prints) against pandas.

    python benchmarks/bench_summary.py [--rows 10000 --rows 50000] [--rounds 7]
                                       [--old REV]

It runs `harness run -q -b mrv -b dlx -b ac3 datasets/medium.txt` once (real rows, with dlx's
native statistics), then makes N rows of them (distinct line numbers, solve times scaled by
a random factor), written as a CSV too. Side by side, ROUNDS times each, it times:

* plain: :func:`harness.summary.for_tables`, the summary and native tables and their text,
  from the rows in memory, with the collector paused (as `harness run` prints them);
* tables: the same tables from the CSV with :mod:`harness.tables` (pandas imported
  beforehand: its import, ~0.2 s, is not counted), reading the CSV included and not;
* with ``--old REV``, the same with the pandas implementation ``harness/tables.py`` had
  at git revision REV (the one before harness.summary, to compare with what it replaced).

It prints the medians in ms and checks that every path prints the same text.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402 - after the path; imported before any timing

from harness import render, summary, tables  # noqa: E402
from harness.results import _rewrite, read_rows  # noqa: E402


def real_rows(folder: Path) -> list[dict[str, str]]:
    out = folder / "real.csv"
    command = [sys.executable, "-c", "from harness.cli import main; main()", "run", "-q"]
    command += ["-b", "mrv", "-b", "dlx"]
    command += ["-b", "ac3", "--out", str(out), str(ROOT / "datasets" / "medium.txt")]
    subprocess.run(command, check=True, cwd=ROOT, capture_output=True)
    return read_rows(out)[1]


def many(base: list[dict[str, str]], count: int, rng: random.Random) -> list[dict[str, str]]:
    """``count`` rows cycling through ``base``'s puzzles, every backend on each."""
    rows: list[dict[str, str]] = []
    line = 0
    while len(rows) < count:
        for row in base:
            copy = dict(row, line=str(line + int(row["line"])))
            copy["solve_s"] = repr(round(float(row["solve_s"]) * rng.uniform(0.5, 2), 9))
            rows.append(copy)
        line += 1000
    return rows[:count]


def plain(rows: list[dict[str, str]]) -> str:
    paused = gc.isenabled()
    gc.disable()
    try:
        puzzles = summary.for_tables(rows)
        return render.render(summary.summary(puzzles)) + render.render_native(
            summary.native_summary(puzzles)
        )
    finally:
        if paused:
            gc.enable()


def with_pandas(module, frame: pd.DataFrame) -> str:
    text = module.render(module.summary(frame))
    native = module.native_summary(frame)
    return text + (module.render_native(native) if not native.empty else "(no rows)")


def old_tables(revision: str, folder: Path):
    """``harness/tables.py`` as it was at ``revision``, as a module."""
    source = subprocess.run(
        ["git", "show", f"{revision}:harness/tables.py"], cwd=ROOT, check=True,
        capture_output=True, text=True,
    ).stdout  # fmt: skip
    path = folder / "old_tables.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("old_tables", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def median_ms(function: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, action="append", help="row counts (10000, 50000)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--old", metavar="REV", help="also time harness/tables.py at REV")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        base = real_rows(folder)
        old = old_tables(args.old, folder) if args.old else None
        print(f"{'rows':>7} {'plain':>8} {'tables':>8} {'+ read':>8}", end="")
        print(f" {'old':>8} {'old+read':>8}" if old else "", "   (ms, medians)")
        for count in args.rows or [10_000, 50_000]:
            rows = many(base, count, random.Random(count))
            csv = folder / f"{count}.csv"
            _rewrite(csv, list(base[0]), rows)
            frame = tables.load(csv)
            modules = [tables, *([old] if old else [])]
            texts = {plain(rows), *(with_pandas(m, m.load(csv)) for m in modules)}
            assert len(texts) == 1, "the paths print different tables"
            gc.collect()
            gc.freeze()  # the rows live on, as in harness run
            figures = [median_ms(lambda r=rows: plain(r), args.rounds)]
            for module in modules:
                loaded = module.load(csv) if module is old else frame
                summarised = median_ms(lambda m=module, f=loaded: with_pandas(m, f), args.rounds)
                read = median_ms(lambda m=module, c=csv: with_pandas(m, m.load(c)), args.rounds)
                figures += [summarised, read]
            gc.unfreeze()
            print(f"{count:>7} " + " ".join(f"{f:8.1f}" for f in figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
