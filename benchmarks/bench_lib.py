"""One native solver three ways: through ``lib:``, through ``cmd:``, and by its own clock.

    python benchmarks/bench_lib.py [--count 49158] [--jobs 2] [--rounds 1] [--max-nodes 100]
                                   [--against DIR]

It builds the example solver (``examples/lib/solver.c``) as a shared library, and the same
code with ``examples/lib/main.c`` as a ``cmd:`` program; makes COUNT distinct 9x9 puzzles,
seeded symmetry variants (``bench_overhead.variant``: relabelling, band, stack, row and
column permutations, transposition) of the public ``norvig-easy50.txt`` (or, without it,
the project's ``datasets/easy.txt`` and ``medium.txt``; ``--dataset`` picks others) that
the example answers in at most MAX_NODES search nodes, so that the
solver takes a few microseconds a puzzle and the harness's own cost shows; then runs
``harness run -q --jobs JOBS`` over them with ``-b lib:...`` and with ``-b cmd:...``,
alternating, ROUNDS times. Every row must be SOLVED. Per backend, medians over the rounds:

* wall s and puzzles/s: the whole ``harness run``, start-up to exit;
* cpu us/puzzle: the CPU time of the harness, its workers and the solver processes, per puzzle;
* solve us: the median of the rows' ``solve_s`` (our clock around the solve);
* own us: the median of the rows' ``own_solve_s`` (the solver's clock inside the call);
* solve/own: the median over puzzles of solve_s / own_solve_s.

With ``--against DIR`` (another checkout of this project), each round also runs ``lib:``
with DIR first on ``PYTHONPATH`` (same interpreter, same packages), in alternation with this
tree's, and prints its medians as ``lib: DIR``.

It needs a C compiler (``cc`` or ``gcc``); without one it says so and exits 0.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_overhead import variant
from common import DATASETS, children_cpu, harness_run

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "lib"
#: The puzzles the variants come from: the public easy set when it is beside the project
#: (most of its variants take the example few nodes), else the project's own easy sets.
SOURCES = (
    [DATASETS / "norvig-easy50.txt"]
    if (DATASETS / "norvig-easy50.txt").is_file()
    else [ROOT / "datasets" / "easy.txt", ROOT / "datasets" / "medium.txt"]
)


def build(folder: Path) -> tuple[Path, Path] | None:
    """The example as a shared library and as a cmd: program, or None without a compiler."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    library, program = folder / "libsolver.so", folder / "solver"
    flags = ["-O2", "-shared", "-fPIC"]
    subprocess.run([compiler, *flags, "-o", str(library), str(EXAMPLE / "solver.c")], check=True)
    subprocess.run([compiler, "-O2", "-o", str(program), str(EXAMPLE / "main.c")], check=True)
    return library, program


def puzzles(library: Path, sources: list[Path], count: int, max_nodes: int, seed: int) -> list[str]:
    """``count`` distinct variants of the puzzles in ``sources`` the library answers in at
    most ``max_nodes`` nodes (it is called here, through ctypes, to tell)."""
    solve = ctypes.CDLL(str(library)).sudoku_solve
    solve.restype = ctypes.c_int64
    stats, answer = (ctypes.c_int64 * 4)(), ctypes.create_string_buffer(82)
    sources = [
        line.strip()
        for path in sources
        for line in path.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    rng = random.Random(seed)
    seen: set[str] = set()
    kept: list[str] = []
    while len(kept) < count:
        text = variant(rng.choice(sources), rng)
        if text in seen:
            continue
        seen.add(text)
        if solve(text.encode(), ctypes.c_int64(1), answer, stats) == 1 and stats[0] <= max_nodes:
            kept.append(text)
    return kept


def timed(spec: str, data: Path, out: Path, jobs: int, count: int, tree: Path) -> dict[str, float]:
    """One ``harness run`` of ``tree``: its figures (see the module docstring); exits unless
    every row is SOLVED."""
    os.environ["PYTHONPATH"] = str(tree)  # inherited by the `harness` subprocess
    cpu = children_cpu()
    wall, rows = harness_run(spec, data, out, "--jobs", str(jobs))
    cpu = children_cpu() - cpu
    unsolved = rows[rows.status != "SOLVED"]
    if len(unsolved) or len(rows) != count:
        sys.exit(f"{spec}: {len(rows)} rows, {len(unsolved)} not SOLVED")
    return {
        "wall s": wall,
        "puzzles/s": count / wall,
        "cpu us/puzzle": cpu / count * 1e6,
        "solve us": float(rows.solve_s.median()) * 1e6,
        "own us": float(rows.own_solve_s.median()) * 1e6,
        "solve/own": float((rows.solve_s / rows.own_solve_s).median()),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=49_158)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--max-nodes", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--dataset",
        type=Path,
        action="append",
        help="9x9 puzzle file to make variants of, repeatable [default: "
        + ", ".join(p.name for p in SOURCES)
        + "]",
    )
    parser.add_argument("--against", type=Path, help="another checkout: lib: timed alternately")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        built = build(folder)
        if built is None:
            print("skipped: no C compiler (cc or gcc) to build examples/lib")
            return 0
        library, program = built
        started = time.perf_counter()
        data, out = folder / "puzzles.txt", folder / "run.csv"
        data.write_text(
            "".join(
                p + "\n"
                for p in puzzles(
                    library, args.dataset or SOURCES, args.count, args.max_nodes, args.seed
                )
            )
        )
        made = time.perf_counter() - started
        runs = {"lib:": (f"lib:{library}", ROOT), "cmd:": (f"cmd:{program}", ROOT)}
        if args.against is not None:
            runs[f"lib: {args.against}"] = (f"lib:{library}", args.against.resolve())
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        print(
            f"{args.count:,} 9x9 puzzles the example answers in <= {args.max_nodes} nodes "
            f"(made in {made:.1f} s), --jobs {args.jobs}, {args.rounds} round(s), "
            f"{os.cpu_count()} cores, load average {load}\n"
        )
        figures: dict[str, list[dict[str, float]]] = {name: [] for name in runs}
        for round_ in range(args.rounds):
            order = list(runs) if round_ % 2 == 0 else list(reversed(runs))
            for name in order:
                spec, tree = runs[name]
                figures[name].append(timed(spec, data, out, args.jobs, args.count, tree))
    columns = list(figures["lib:"][0])
    width = max(map(len, figures)) + 1
    print(f"{'':{width}}" + "".join(f"{c:>14}" for c in columns))
    for name, each in figures.items():
        medians = [statistics.median(f[c] for f in each) for c in columns]
        print(f"{name:{width}}" + "".join(f"{m:14,.2f}" for m in medians))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\nmedians over the rounds; load average at the end {load}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
