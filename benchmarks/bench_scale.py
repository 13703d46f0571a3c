"""``harness run`` at scale: wall, throughput and peak memory at N = 10,000 to 1,000,000.

    python benchmarks/bench_scale.py [--sizes 10000,100000,1000000] [--jobs 2]
                                     [--backend bitmask] [--cluster local:2] [--report]

For each N it makes N distinct 9x9 puzzles (seeded: each a shipped puzzle of
datasets/hard95.txt or of the public sets beside the project, its digits relabelled, its
bands, stacks, rows within bands and columns within stacks permuted, and maybe transposed;
kept in a cache folder for the next time), runs ``harness run -q -b BACKEND --jobs J`` on them
(or ``--cluster``) and prints:

* wall seconds and puzzles a second;
* overhead: the wall over the summed encode + solve of the rows over the jobs;
* peak resident memory of the harness process, and of its children together (the workers,
  or the Dask processes), sampled every 0.1 s with psutil;
* CSV bytes a row, and the statuses (every row should be SOLVED);
* the harness process's CPU a row (its own work: reading, judging, writing, progress),
  which the machine's load changes less than the wall;
* with ``--report``: ``harness table`` and ``harness report`` on the CSV, their
  wall seconds, peak memory and (report) page size.

Then the slope of each figure per puzzle between the two largest N, and its projection to
10,000,000 puzzles.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import os
import platform
import random
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = [
    ROOT / "datasets" / "hard95.txt",
    *sorted((ROOT.parent / "shared" / "datasets").glob("*.txt")),
]
CACHE = Path(tempfile.gettempdir()) / "harness-bench-scale"
HARNESS = Path(sys.executable).with_name("harness")
PROJECTION = 10_000_000


def base_puzzles() -> list[str]:
    """The shipped 9x9 one-line puzzles (81 symbols, ``.`` or ``0`` empty)."""
    found: dict[str, None] = {}
    for path in SHIPPED:
        if not path.is_file():
            continue
        for line in path.read_text().splitlines():
            text = line.strip()[:81]
            if len(text) == 81 and not text.startswith("#"):
                found[text.replace("0", ".")] = None
    return list(found)


def variant(puzzle: str, rng: random.Random) -> str:
    """``puzzle`` with its digits relabelled and its rows and columns permuted (within bands
    and stacks, and the bands and stacks themselves), maybe transposed: the same puzzle to
    a solver, another line to the harness."""
    digits = list("123456789")
    rng.shuffle(digits)
    relabel = str.maketrans("123456789", "".join(digits))

    def order() -> list[int]:
        bands = rng.sample(range(3), 3)
        return [3 * b + r for b in bands for r in rng.sample(range(3), 3)]

    rows, cols = order(), order()
    text = puzzle.translate(relabel)
    if rng.random() < 0.5:
        text = "".join(text[c * 9 + r] for r in range(9) for c in range(9))
    return "".join(text[r * 9 + c] for r in rows for c in cols)


def puzzle_file(count: int, seed: int) -> Path:
    """A file of ``count`` distinct puzzles (made once, then taken from the cache)."""
    path = CACHE / f"scale-{count}-{seed}.txt"
    if path.exists():
        return path
    CACHE.mkdir(parents=True, exist_ok=True)
    bases = base_puzzles()
    rng = random.Random(seed)
    seen: set[int] = set()
    tmp = path.with_suffix(".tmp")
    with tmp.open("w") as out:
        while len(seen) < count:
            text = variant(bases[len(seen) % len(bases)], rng)
            if hash(text) not in seen:
                seen.add(hash(text))
                out.write(text + "\n")
    tmp.replace(path)
    return path


@dataclass
class Peaks:
    """Peak resident memory of a process and of its descendants together, MiB; and the
    CPU seconds of the process as last sampled (before it ended)."""

    own: float = 0.0
    children: float = 0.0
    cpu_s: float = 0.0


def measured(command: list[str]) -> tuple[float, Peaks, subprocess.CompletedProcess]:
    """Run ``command``, sampling its memory every 0.1 s: its wall seconds, peaks, result."""
    peaks = Peaks()
    start = time.perf_counter()
    process = psutil.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.1):
            try:
                peaks.own = max(peaks.own, process.memory_info().rss / 2**20)
                times = process.cpu_times()
                peaks.cpu_s = times.user + times.system
                kids = process.children(recursive=True)
                total = 0.0
                for kid in kids:
                    with contextlib.suppress(psutil.Error):  # it may end meanwhile
                        total += kid.memory_info().rss / 2**20
                peaks.children = max(peaks.children, total)
            except psutil.Error:
                return

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, stderr = process.communicate()
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    return wall, peaks, subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def csv_figures(path: Path, jobs: int) -> tuple[float, dict[str, int], int]:
    """Summed encode + solve over ``jobs``, the status counts, and the rows, read a row at
    a time."""
    total, statuses, rows = 0.0, {}, 0
    with path.open(newline="") as f:
        for row in csv.DictReader(f):
            rows += 1
            statuses[row["status"]] = statuses.get(row["status"], 0) + 1
            total += float(row["encode_s"] or 0) + float(row["solve_s"] or 0)
    return total / jobs, statuses, rows


def one_size(count: int, args: argparse.Namespace, folder: Path) -> dict[str, float]:
    """Run the harness on ``count`` puzzles; print and return its figures."""
    data = puzzle_file(count, args.seed)
    out = folder / f"run-{count}.csv"
    where = ["--cluster", args.cluster] if args.cluster else ["--jobs", str(args.jobs)]
    command = [str(HARNESS), "run", "-q", "-b", args.backend, *where, "--out", str(out), str(data)]
    wall, peaks, done = measured(command)
    if done.returncode != 0:
        sys.exit(f"harness run failed ({done.returncode}):\n{done.stderr[-2000:]}")
    jobs = 2 if args.cluster else args.jobs
    work, statuses, rows = csv_figures(out, jobs)
    figures = {
        "N": count,
        "wall_s": wall,
        "per_s": count / wall,
        "overhead": wall / work,
        "rss_mib": peaks.own,
        "children_mib": peaks.children,
        "csv_bytes_row": out.stat().st_size / rows,
        "parent_us_row": peaks.cpu_s / rows * 1e6,
    }
    print(
        f"N={count:>9,}  wall {wall:8.1f} s  {count / wall:8,.0f}/s  wall/(work/jobs) "
        f"{wall / work:5.2f}  harness RSS {peaks.own:6.0f} MiB  children {peaks.children:6.0f} MiB"
        f"  CSV {figures['csv_bytes_row']:.0f} B/row  harness CPU "
        f"{figures['parent_us_row']:.1f} us/row  {statuses}",
        flush=True,
    )
    for name in ("table", "report") if args.report else ():
        extra = ["-o", str(folder / f"report-{count}.html")] if name == "report" else []
        wall, peaks, done = measured([str(HARNESS), name, str(out), *extra])
        page = (folder / f"report-{count}.html").stat().st_size if name == "report" else 0
        status = "ok" if done.returncode == 0 else f"exit {done.returncode}"
        figures[f"{name}_s"], figures[f"{name}_mib"] = wall, peaks.own
        figures[f"{name}_page_mb"] = page / 1e6
        print(
            f"    harness {name}: {wall:.1f} s, {peaks.own:.0f} MiB"
            + (f", page {page / 1e6:.1f} MB" if page else "")
            + f" ({status})",
            flush=True,
        )
    out.unlink()
    return figures


def slopes(results: list[dict[str, float]]) -> None:
    """Each figure's slope per puzzle between the two largest runs, and at 10,000,000."""
    if len(results) < 2:
        return
    small, large = results[-2], results[-1]
    span = large["N"] - small["N"]
    print(f"\nslope between N={small['N']:,} and N={large['N']:,}, and at {PROJECTION:,}:")
    for name, unit, scale in (
        ("rss_mib", "harness RSS", 2**20),
        ("children_mib", "children RSS", 2**20),
        ("wall_s", "wall", 1),
    ):
        slope = (large[name] - small[name]) / span
        projected = large[name] + slope * (PROJECTION - large["N"])
        per = f"{slope * scale:,.1f} B" if scale > 1 else f"{slope * 1e6:,.1f} us"
        shown = f"{projected:,.0f} MiB" if scale > 1 else f"{projected:,.0f} s"
        print(f"  {unit:13s} {per} a puzzle -> {shown} at {PROJECTION:,}")


def machine() -> str:
    model = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"{os.cpu_count()} CPUs, {model}; load {load}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000", help="N, comma-separated")
    parser.add_argument("--backend", default="bitmask")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--cluster", default=None, help="e.g. local:2 (instead of --jobs)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--report", action="store_true", help="also time table and report")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "|", machine())
    where = f"--cluster {args.cluster}" if args.cluster else f"--jobs {args.jobs}"
    print(f"harness run -q -b {args.backend} {where}, sizes {sizes}\n", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as folder:
        results = [one_size(count, args, Path(folder)) for count in sizes]
    slopes(results)


if __name__ == "__main__":
    main()
