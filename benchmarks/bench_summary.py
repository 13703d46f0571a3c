"""The summary tables of many rows: what `harness run` prints, against pandas.

    python benchmarks/bench_summary.py [--rows 10000 --rows 50000] [--rounds 7]
                                       [--old REV]
    python benchmarks/bench_summary.py --against REV [--count 10000] [--rounds 41]

It runs `harness run -q -b mrv -b dlx -b ac3 datasets/medium.txt` once (real rows, with dlx's
native statistics), then makes N rows of them (distinct line numbers, solve times scaled by
a random factor), written as a CSV too. Side by side, ROUNDS times each, it times:

* plain: :func:`harness.tables.summary.run_puzzles`, the summary and native tables and their
  text, from the rows' compact columns (as `harness run` holds and prints them);
* tables: the same tables from the CSV with :mod:`harness.tables.frames` (pandas imported
  beforehand: its import, ~0.2 s, is not counted), reading the CSV included and not;
* with ``--old REV``, the same with the pandas implementation ``harness/tables/frames.py`` had
  at git revision REV (the one before harness.tables.summary, to compare with what it replaced).

It prints the medians in ms and checks that every path prints the same text.

With ``--against REV`` it times instead what `harness run` does after its last solve to
print its tables (``print_tables``: the rows as that code holds them reduced to puzzles,
the summary and native tables and their text, the collector paused) with the code of git
revision REV and with the code in the tree, alternately in one process, ROUNDS times each,
on three shapes of rows as `harness run` holds them (at most 8 ms for 10,000 rows of one
backend):

* COUNT puzzles x 1 backend: the rows of `harness run -q -b bitmask` on COUNT distinct
  puzzles (bench_overhead.py's build);
* COUNT / 10 puzzles x 10 backends, in run order (each puzzle's backends shuffled), solve
  times scaled at random, half the backends with a native statistic;
* COUNT / 3 puzzles x 3 repeats, in run order.

It prints the medians and minima in ms, their ratio, and checks that both print the same.
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
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402 - after the path; imported before any timing
from harness.gc_pause import gc_paused  # noqa: E402
from harness.results.compact import CompactRows  # noqa: E402

from harness.results import read_rows  # noqa: E402
from harness.tables import frames as tables  # noqa: E402
from harness.tables import (  # noqa: E402
    render,
    summary,
)


def real_rows(folder: Path) -> list[dict[str, str]]:
    out = folder / "real.csv"
    command = [sys.executable, "-c", "from harness.cli import main; main()", "run", "-q"]
    command += ["-b", "mrv", "-b", "dlx"]
    command += ["-b", "ac3", "--out", str(out), str(ROOT / "datasets" / "medium.txt")]
    subprocess.run(command, check=True, cwd=ROOT, capture_output=True)
    return read_rows(out)[1]


def scaled(row: dict[str, str], rng: random.Random, **changes: str) -> dict[str, str]:
    """A copy of ``row`` with ``changes`` and its solve time scaled by a random factor."""
    return dict(row, **changes, solve_s=repr(round(float(row["solve_s"]) * rng.uniform(0.5, 2), 9)))


def many(base: list[dict[str, str]], count: int, rng: random.Random) -> list[dict[str, str]]:
    """``count`` rows cycling through ``base``'s puzzles, every backend on each."""
    rows: list[dict[str, str]] = []
    line = 0
    while len(rows) < count:
        for row in base:
            rows.append(scaled(row, rng, line=str(line + int(row["line"]))))
        line += 1000
    return rows[:count]


Rows = list[dict[str, str]]


def printer(summary_module: ModuleType, render_module: ModuleType) -> Callable[[Rows], str]:
    """The tables `harness run` prints (without the tiers), computed by the given modules,
    from the rows in memory, with the collector paused (as ``print_tables`` does)."""

    held: dict[int, tuple[Rows, CompactRows]] = {}  # the compact rows of each list of rows

    def printed(rows: Rows) -> str:
        if not hasattr(summary_module, "for_tables") and id(rows) not in held:
            held[id(rows)] = (rows, compact(rows))  # as harness run holds them: not timed
        with gc_paused():
            if hasattr(summary_module, "for_tables"):  # before the compact columns
                puzzles = summary_module.for_tables(rows)
            else:
                puzzles = summary_module.run_puzzles(held[id(rows)][1])
            text = render_module.render(summary_module.summary(puzzles))
            return text + render_module.render_native(summary_module.native_summary(puzzles))

    return printed


def compact(rows: Rows) -> CompactRows:
    """``rows`` as the compact columns `harness run` keeps of them."""
    held = CompactRows(int(rows[0]["limit"]))
    held.add_native(rows[0])
    for row in rows:
        held.add(row)
    return held


def write_csv(path: Path, rows: Rows) -> None:
    import csv

    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


plain = printer(summary, render)


def with_pandas(module, frame: pd.DataFrame) -> str:
    text = module.render(module.summary(frame))
    native = module.native_summary(frame)
    return text + (module.render_native(native) if not native.empty else "(no rows)")


def old_tables(revision: str, folder: Path):
    """``harness/tables/frames.py`` as it was at ``revision``, as a module."""
    source = subprocess.run(
        ["git", "show", f"{revision}:harness/tables/frames.py"], cwd=ROOT, check=True,
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


def plain_at(revision: str, folder: Path) -> Callable[[Rows], str]:
    """:func:`plain` with the code of git revision ``revision`` (its harness and backends,
    imported under their own names, then put aside: the current modules stay loaded)."""
    tree = folder / f"at-{revision}"
    tree.mkdir()
    archive = subprocess.run(
        ["git", "archive", revision, "harness", "backends"], cwd=ROOT, check=True,
        capture_output=True,
    ).stdout  # fmt: skip
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    ours = ("harness", "backends")
    current = {k: m for k, m in sys.modules.items() if k.split(".")[0] in ours}
    for name in current:
        del sys.modules[name]
    sys.path.insert(0, str(tree))
    try:
        old_summary = importlib.import_module("harness.tables.summary")
        old_render = importlib.import_module("harness.tables.render")
    finally:
        sys.path.remove(str(tree))
        for name in [k for k in sys.modules if k.split(".")[0] in ours]:
            del sys.modules[name]
        sys.modules.update(current)
    return printer(old_summary, old_render)


def shapes(folder: Path, count: int, rng: random.Random) -> dict[str, list[dict[str, str]]]:
    """The three shapes of rows of ``--against`` (see the module's docstring)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_overhead import build

    puzzles = folder / "puzzles.txt"
    puzzles.write_text("\n".join(build(count, 0)) + "\n")
    out = folder / "bitmask.csv"
    command = [sys.executable, "-c", "from harness.cli import main; main()", "run", "-q"]
    command += ["-b", "bitmask", "--out", str(out), str(puzzles)]
    subprocess.run(command, check=True, cwd=ROOT, capture_output=True)
    one = read_rows(out)[1]
    backends = [f"b{k}" for k in range(10)]
    several = []
    for row in one[: count // 10]:
        for backend in rng.sample(backends, len(backends)):
            native = str(rng.randrange(10**4)) if backend < "b5" else ""
            several.append(scaled(row, rng, backend=backend, updates=native))
    repeated = [scaled(row, rng, repeat=str(k)) for row in one[: count // 3] for k in range(3)]
    return {
        f"{count} x 1 backend": one,
        f"{count // 10} x 10 backends": several,
        f"{count // 3} x 3 repeats": repeated,
    }


def against(revision: str, count: int, rounds: int) -> int:
    """Time what `harness run` does to print its tables, at ``revision`` and now."""
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        old = plain_at(revision, folder)
        cases = shapes(folder, count, random.Random(count))
        print(f"{'rows':<22} {revision[:12]:>12} {'now':>8} {'now/old':>8}   (ms: medians; minima)")
        for label, rows in cases.items():
            assert old(rows) == plain(rows), f"{label}: the two print different tables"
            gc.collect()
            gc.freeze()  # the rows live on, as in harness run
            times: dict[str, list[float]] = {"old": [], "now": []}
            for _ in range(rounds):  # alternately, so that the machine's drift hits both
                for key, function in (("old", old), ("now", plain)):
                    start = time.perf_counter()
                    function(rows)
                    times[key].append(1000 * (time.perf_counter() - start))
            gc.unfreeze()
            before, after = (statistics.median(times[k]) for k in ("old", "now"))
            low = f"{min(times['old']):.2f}; {min(times['now']):.2f}"
            print(f"{label:<22} {before:12.2f} {after:8.2f} {after / before:8.2f}   ({low})")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, action="append", help="row counts (10000, 50000)")
    parser.add_argument("--rounds", type=int, help="default 7, with --against 41")
    parser.add_argument("--old", metavar="REV", help="also time harness/tables/frames.py at REV")
    parser.add_argument("--against", metavar="REV", help="time print_tables at REV and now")
    parser.add_argument("--count", type=int, default=10_000, help="with --against (10000)")
    args = parser.parse_args()
    if args.against:
        return against(args.against, args.count, args.rounds or 41)
    args.rounds = args.rounds or 7
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        base = real_rows(folder)
        old = old_tables(args.old, folder) if args.old else None
        print(f"{'rows':>7} {'plain':>8} {'tables':>8} {'+ read':>8}", end="")
        print(f" {'old':>8} {'old+read':>8}" if old else "", "   (ms, medians)")
        for count in args.rows or [10_000, 50_000]:
            rows = many(base, count, random.Random(count))
            csv = folder / f"{count}.csv"
            write_csv(csv, rows)
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
