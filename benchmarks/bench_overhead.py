"""Harness overhead: the whole wall time of `harness run` against the sum of its solve times.

    python benchmarks/bench_overhead.py [--backend pycosat] [--count 1200] [--jobs 1]

It builds a file of COUNT distinct 9x9 puzzles by applying validity-preserving symmetries
(digit relabelling, band/stack and row/column permutations, transposition) to the public
puzzle sets in ../shared/datasets, runs `harness run -q` on it in a subprocess, and prints:

* wall: the subprocess's whole wall time (interpreter start, reading, workers, checking,
  CSV, table);
* solve: the sum of the backend's encode + solve times over every row (what a user asked
  to measure);
* overhead = wall / solve - 1 (target: at most 10 %), and where it goes.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets"


def variant(text: str, rng: random.Random) -> str:
    """A random symmetry of a 9x9 puzzle: same difficulty class, different text."""
    digits = list("123456789")
    rng.shuffle(digits)
    relabel = dict(zip("123456789", digits, strict=True))
    bands = rng.sample(range(3), 3)
    rows = [b * 3 + r for b in bands for r in rng.sample(range(3), 3)]
    stacks = rng.sample(range(3), 3)
    cols = [s * 3 + c for s in stacks for c in rng.sample(range(3), 3)]
    grid = [[text[r * 9 + c] for c in cols] for r in rows]
    if rng.random() < 0.5:
        grid = [list(col) for col in zip(*grid, strict=True)]
    return "".join(relabel.get(ch, ".") for row in grid for ch in row)


def build(count: int, seed: int) -> list[str]:
    sources = []
    for name in ("norvig-top95.txt", "norvig-hardest.txt", "norvig-easy50.txt"):
        sources += [line.strip() for line in (SHARED / name).read_text().splitlines() if line]
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < count:
        text = variant(rng.choice(sources), rng)
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", default="pycosat")
    parser.add_argument("--count", type=int, default=1200)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if not SHARED.is_dir():
        print(f"public datasets absent: {SHARED} not found", file=sys.stderr)
        return 2
    harness = Path(sys.executable).with_name("harness")
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "variants.txt"
        data.write_text("\n".join(build(args.count, args.seed)) + "\n")
        out = Path(tmp) / "run.csv"
        command = [str(harness), "run", "-q", "-b", args.backend, "-j", str(args.jobs)]
        command += ["--out", str(out), str(data)]
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        wall = time.perf_counter() - start
        if done.returncode != 0:
            print(done.stdout, done.stderr, sep="\n", file=sys.stderr)
            return done.returncode
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import harness.cli"], check=True)
        startup = time.perf_counter() - start
        rows = pd.read_csv(out)
    solve = float((rows.encode_s + rows.solve_s).sum())
    worker = float(rows.wall_s.sum())
    solved = int((rows.status == "SOLVED").sum())
    print(f"backend {args.backend}, {len(rows)} puzzles ({solved} solved), jobs {args.jobs}")
    print(f"wall time of harness run          {wall:8.3f} s")
    print(f"sum of encode + solve times       {solve:8.3f} s")
    print(f"overhead (wall / solve - 1)       {100 * (wall / solve - 1):7.1f} %   (target <= 10 %)")
    print(f"  of which interpreter + imports  {startup:8.3f} s")
    print(f"  worker time outside the solve   {worker - solve:8.3f} s")
    print(f"  per puzzle, outside the solve   {1000 * (wall - solve) / len(rows):8.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
