"""The harness at scale: a run of N puzzles, reading a results CSV of millions of rows, and a
run of one puzzle, each beside another checkout's code in the same run (``--against``).

    python benchmarks/bench_scale.py [--sizes 10000,100000,1000000] [--jobs 2]
                                     [--backend bitmask] [--cluster local:2]
                                     [--reading] [--ten-million] [--startup]
                                     [--rounds 3] [--against DIR]

**Runs** (``--sizes``; ``--sizes ''`` for none). For each N it makes N distinct 9x9 puzzles
(seeded: each a shipped puzzle of datasets/hard95.txt or of the public sets beside the
project, its digits relabelled, its bands, stacks, rows within bands and columns within
stacks permuted, and maybe transposed; kept in a cache folder for the next time), runs
``harness run -q -b BACKEND --jobs J`` on them (or ``--cluster``) and prints: wall seconds
and puzzles a second; overhead (the wall over the summed encode + solve of the rows over
the jobs); the peak resident memory of the harness process, and of its children together;
CSV bytes a row and the statuses; the harness process's CPU a row. Then the slope of each
figure per puzzle between the two largest N, and its projection to 10,000,000 puzzles.

**Reading** (``--reading``): a 1,000,000-row CSV of two backends (a real run of bitmask and
norvig over 100,000 puzzles, written five times with the line numbers shifted), then
``harness table``, ``harness report`` and ``harness check A A`` on it: wall seconds and
peak memory, the median of ``--rounds``. With ``--ten-million``, ``harness table`` on ten
times as many rows too (this checkout's alone).

**Start-up** (``--startup``): ``harness run -q -b mrv`` on one puzzle, the median wall of
``--rounds`` x 5.

With ``--against DIR`` (a checkout of other code, whose dependencies this Python has), every
figure is measured for both, their rounds alternating, so both see the same machine.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# imported once the project root is on sys.path (E402)
from harness.results.companions import (  # noqa: E402
    meta_path_for,
    meta_to_read,
    older_meta_path_for,
)
from harness.results.provenance import csv_digest  # noqa: E402

SHIPPED = [
    ROOT / "datasets" / "hard95.txt",
    *sorted((ROOT.parent / "shared" / "datasets").glob("*.txt")),
]
CACHE = Path(tempfile.gettempdir()) / "harness-bench-scale"
PROJECTION = 10_000_000


def harness(root: Path) -> list[str]:
    """The command that runs the ``harness`` of the checkout at ``root``."""
    code = (
        f"import sys; sys.path.insert(0, {str(root)!r}); from harness.cli.entry import main; main()"
    )
    return [sys.executable, "-c", code]


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


def one_size(
    count: int, args: argparse.Namespace, folder: Path, root: Path = ROOT
) -> dict[str, float]:
    """Run the harness of ``root`` on ``count`` puzzles; print and return its figures."""
    data = puzzle_file(count, args.seed)
    out = folder / f"run-{count}.csv"
    where = ["--cluster", args.cluster] if args.cluster else ["--jobs", str(args.jobs)]
    command = [*harness(root), "run", "-q", "-b", args.backend, *where, "--out", str(out)]
    command.append(str(data))
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
        f"{label(root)}  N={count:>9,}  wall {wall:8.1f} s  {count / wall:8,.0f}/s  "
        f"wall/(work/jobs) {wall / work:5.2f}  harness RSS {peaks.own:6.0f} MiB  "
        f"children {peaks.children:6.0f} MiB"
        f"  CSV {figures['csv_bytes_row']:.0f} B/row  harness CPU "
        f"{figures['parent_us_row']:.1f} us/row  {statuses}",
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


def label(root: Path) -> str:
    """How a checkout is named in the figures: ``this``, or the folder given to --against."""
    return "this " if root == ROOT else f"{root.name}"


def reading_csv(folder: Path, seed: int, copies: int) -> Path:
    """A CSV of ``copies`` x 200,000 rows: bitmask and norvig over 100,000 puzzles (run once,
    by this checkout), written ``copies`` times with the line numbers shifted."""
    run = folder / "r100k.csv"
    if not run.exists():
        data = puzzle_file(100_000, seed)
        command = [*harness(ROOT), "run", "-q", "-b", "bitmask", "-b", "norvig", "--jobs", "2"]
        subprocess.run([*command, "--out", str(run), str(data)], check=True, capture_output=True)
    out = folder / f"rows-{copies * 200_000}.csv"
    if out.exists() and meta_path_for(out).exists():
        return out
    with run.open(newline="") as source:
        header, *rows = source.read().split("\r\n")
    rows = [r for r in rows if r]
    with out.open("w", newline="") as target:
        target.write(header + "\r\n")
        for k in range(copies):
            for row in rows:
                dataset, line, rest = row.split(",", 2)
                target.write(f"{dataset},{int(line) + k * 100_000},{rest}\r\n")
    meta = json.loads(meta_to_read(run).read_bytes())
    # the file is this run's rows, copied: its record of the CSV is of this file
    meta.update(csv=str(out), csv_digest=csv_digest(out))
    for name in (meta_path_for(out), older_meta_path_for(out)):  # an --against checkout's too
        name.write_text(json.dumps(meta), encoding="utf-8")
    return out


def alternating(roots: list[Path], rounds: int, command) -> dict[Path, list[tuple[float, float]]]:
    """``command(root)`` for each root in turn, ``rounds`` times: (wall s, peak MiB) each;
    a command that fails stops the benchmark with its error."""
    found: dict[Path, list[tuple[float, float]]] = {root: [] for root in roots}
    for _ in range(rounds):
        for root in roots:
            wall, peaks, done = measured(command(root))
            if done.returncode != 0:
                sys.exit(f"{label(root)}: {done.args[3:]} failed:\n{done.stderr[-2000:]}")
            found[root].append((wall, peaks.own))
    return found


def show(name: str, found: dict[Path, list[tuple[float, float]]]) -> None:
    """The median wall and peak memory of each checkout's rounds, and their ratio."""
    medians = {
        root: (statistics.median(w for w, _ in runs), statistics.median(m for _, m in runs))
        for root, runs in found.items()
    }
    line = "  ".join(
        f"{label(root)}: {wall:6.2f} s {mib:6.0f} MiB" for root, (wall, mib) in medians.items()
    )
    roots = list(medians)
    if len(roots) == 2 and medians[roots[1]][0] > 0:
        line += f"  (wall x{medians[roots[0]][0] / medians[roots[1]][0]:.2f})"
    print(f"  {name:24s} {line}", flush=True)


def reading(args: argparse.Namespace, roots: list[Path], folder: Path) -> None:
    """``table``, ``report`` and ``check A A`` on a 1,000,000-row CSV (and ``table`` on
    10,000,000 rows with ``--ten-million``)."""
    big = reading_csv(CACHE, args.seed, 5)
    print(
        f"\nreading {big.stat().st_size / 1e6:,.0f} MB, 1,000,000 rows (median of {args.rounds}):",
        flush=True,
    )
    page = folder / "r.html"
    show("table", alternating(roots, args.rounds, lambda r: [*harness(r), "table", str(big)]))
    show(
        "report",
        alternating(
            roots, args.rounds, lambda r: [*harness(r), "report", str(big), "-o", str(page)]
        ),
    )
    print(f"  {'report page':24s} {page.stat().st_size / 1e6:.1f} MB")
    show(
        "check A A",
        alternating(roots, args.rounds, lambda r: [*harness(r), "check", str(big), str(big)]),
    )
    if args.ten_million:
        huge = reading_csv(CACHE, args.seed, 50)
        print(f"\nreading {huge.stat().st_size / 1e6:,.0f} MB, 10,000,000 rows:", flush=True)
        show("table", alternating(roots[:1], 1, lambda r: [*harness(r), "table", str(huge)]))


def startup(args: argparse.Namespace, roots: list[Path], folder: Path) -> None:
    """``harness run -q -b mrv`` on one puzzle, fresh output each time."""
    one = folder / "one.txt"
    one.write_text(base_puzzles()[0] + "\n")
    counter = iter(range(10**9))

    def command(root: Path) -> list[str]:
        out = folder / f"one-{next(counter)}.csv"
        return [*harness(root), "run", "-q", "-b", "mrv", "--out", str(out), str(one)]

    print(f"\none-puzzle run (median of {args.rounds * 5}):", flush=True)
    show("run -b mrv, one puzzle", alternating(roots, args.rounds * 5, command))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000", help="N, comma-separated")
    parser.add_argument("--backend", default="bitmask")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--cluster", default=None, help="e.g. local:2 (instead of --jobs)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--reading", action="store_true", help="table, report, check at 1M rows")
    parser.add_argument("--ten-million", action="store_true", help="and table at 10M rows")
    parser.add_argument("--startup", action="store_true", help="a one-puzzle run")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", type=Path, default=None, help="another checkout")
    args = parser.parse_args()
    roots = [ROOT] + ([args.against.resolve()] if args.against else [])
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    print(time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "|", machine())
    where = f"--cluster {args.cluster}" if args.cluster else f"--jobs {args.jobs}"
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as folder:
        if sizes:
            print(f"harness run -q -b {args.backend} {where}, sizes {sizes}\n", flush=True)
            for root in roots:
                slopes([one_size(count, args, Path(folder), root) for count in sizes])
        if args.reading:
            reading(args, roots, Path(folder))
        if args.startup:
            startup(args, roots, Path(folder))


if __name__ == "__main__":
    main()
