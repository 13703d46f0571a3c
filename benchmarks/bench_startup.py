"""Start-up of the command line, optionally side by side with another checkout.

    python benchmarks/bench_startup.py [--against DIR] [--backend bitmask] [--rounds 7]

Times, in alternating rounds, each a fresh subprocess of this interpreter:

* python: ``python -c pass``, the interpreter and its site packages alone (the floor);
* import: ``import harness.cli.run``, as ``-X importtime`` reports its cumulative time;
* run: the whole wall time of ``harness run -q -b BACKEND`` on one 9x9 puzzle (the first of
  the project's datasets/easy.txt), from a warm disk cache (one untimed run first).

It prints each figure's median. With ``--against DIR`` (another checkout of this project,
e.g. ``git clone -q . /tmp/before && git -C /tmp/before checkout main``), each tree is put
first on ``PYTHONPATH`` for its rounds, so the two run with the same interpreter and installed
packages, alternating, and each figure's ratio (this tree's over DIR's) is printed.
Both trees' bytecode is compiled first, as ``pip install`` does.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PUZZLES = ROOT / "datasets" / "easy.txt"
FIGURES = ("python", "import", "run")


def environment(tree: Path) -> dict[str, str]:
    """The environment that makes this interpreter import ``tree``'s packages first."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tree), env.get("PYTHONPATH")]))
    return env


def wall(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, str]:
    """Seconds a subprocess takes, and its stderr; exits with its output when it fails."""
    start = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return seconds, done.stderr


def one_round(tree: Path, backend: str, puzzle: Path, work: Path) -> dict[str, float]:
    """The three figures for ``tree``, in seconds."""
    env = environment(tree)
    python = [sys.executable]
    figures = {"python": wall([*python, "-c", "pass"], env, work)[0]}
    _, log = wall([*python, "-X", "importtime", "-c", "import harness.cli.run"], env, work)
    last = log.strip().splitlines()[-1]  # "import time: self | cumulative | harness.cli.run"
    figures["import"] = int(last.split("|")[1]) / 1e6
    out = work / "run.csv"
    for path in (out, out.with_suffix(".meta.json"), out.with_suffix(".log")):
        path.unlink(missing_ok=True)
    harness = str(Path(sys.executable).with_name("harness"))
    command = [harness, "run", "-q", "-b", backend, "--out", str(out), str(puzzle)]
    figures["run"] = wall(command, env, work)[0]
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--against", type=Path, help="another checkout, timed alternately")
    parser.add_argument("--backend", default="bitmask")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    trees = [ROOT] + ([args.against.resolve()] if args.against else [])
    for tree in trees:
        if not (tree / "harness" / "cli" / "run.py").is_file():
            parser.error(f"{tree} is not a checkout of this project (no harness/cli/run.py)")
        subprocess.run(
            [
                sys.executable,
                "-m",
                "compileall",
                "-q",
                str(tree / "backends"),
                str(tree / "harness"),
            ],
            check=True,
            capture_output=True,
        )
    times: dict[Path, list[dict[str, float]]] = {tree: [] for tree in trees}
    with tempfile.TemporaryDirectory() as tmp:  # the working folder: no checkout on sys.path
        work = Path(tmp)
        puzzle = work / "one.txt"
        lines = PUZZLES.read_text().splitlines()
        puzzle.write_text(next(line for line in lines if line and line[0] != "#") + "\n")
        for tree in trees:
            one_round(tree, args.backend, puzzle, work)  # untimed: warms the disk cache
        for i in range(args.rounds):  # alternate, so the machine's drift hits both trees
            for tree in trees[i % len(trees) :] + trees[: i % len(trees)]:
                times[tree].append(one_round(tree, args.backend, puzzle, work))
    print(f"medians of {args.rounds} rounds, seconds; load average {os.getloadavg()[0]:.2f}")
    print(f"{'tree':<40} " + " ".join(f"{name:>8}" for name in FIGURES))
    medians = {
        t: {f: statistics.median(r[f] for r in rounds) for f in FIGURES}
        for t, rounds in times.items()
    }
    for tree, figures in medians.items():
        print(f"{str(tree)[-40:]:<40} " + " ".join(f"{figures[f]:8.3f}" for f in FIGURES))
    if args.against:
        ratios = {f: medians[ROOT][f] / medians[trees[1]][f] for f in FIGURES}
        print(f"{'this / against':<40} " + " ".join(f"{ratios[f]:8.2f}" for f in FIGURES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
