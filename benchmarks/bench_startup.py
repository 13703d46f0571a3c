"""Start-up of the command line, optionally side by side with other checkouts.

    python benchmarks/bench_startup.py [--against DIR ...] [--backend bitmask] [--rounds 7]
                                       [--dataset datasets/hard95.txt]

Times, in alternating rounds, each a fresh subprocess of this interpreter:

* python: ``python -c pass``, the interpreter and its site packages alone (the floor);
* import: ``import harness.cli.run``, as ``-X importtime`` reports its cumulative time;
* run: the whole wall time of ``harness run -q -b BACKEND`` on one puzzle (the first of
  ``--dataset``), in a fresh folder, from a warm disk cache (one untimed run first);
* cpu: the CPU time (user and system) of that run and of the processes it waited for (its
  worker, git): what the run costs, which other jobs on the machine change less than its
  wall time.

It prints each figure's median, with the load average before and after. With ``--against
DIR`` (another checkout of this project, e.g. ``git worktree add /tmp/before main``;
repeatable), each tree is put first on ``PYTHONPATH`` for its rounds, so all run with the
same interpreter and installed packages, in turn, and each figure's ratio (this tree's over
DIR's) is printed. Each tree's ``harness`` is started through the console script its own
``pyproject.toml`` names, so an older layout runs as it was installed. Every tree's bytecode
is compiled first, as ``pip install`` does; run it with ``PYTHONDONTWRITEBYTECODE`` unset.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATASET = ROOT / "datasets" / "hard95.txt"
FIGURES = ("python", "import", "run", "cpu")


def environment(tree: Path) -> dict[str, str]:
    """The environment that makes this interpreter import ``tree``'s packages first."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tree), env.get("PYTHONPATH")]))
    return env


def console_script(tree: Path) -> list[str]:
    """The command that starts ``tree``'s ``harness`` console script with this interpreter."""
    scripts = tomllib.loads((tree / "pyproject.toml").read_text())["project"]["scripts"]
    module, function = scripts["harness"].split(":")
    start = f"import sys; from {module} import {function}; sys.argv[0] = 'harness'; "
    return [sys.executable, "-c", f"{start}sys.exit({function}())"]


def children_cpu() -> float:
    """CPU seconds of every child process this one has waited for so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def wall(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, str, float]:
    """Seconds a subprocess takes, its stderr and its CPU seconds; exits with its output
    when it fails."""
    cpu = children_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return seconds, done.stderr, children_cpu() - cpu


def one_round(tree: Path, backend: str, puzzle: Path, work: Path) -> dict[str, float]:
    """The figures for ``tree``, in seconds."""
    env = environment(tree)
    figures = {"python": wall([sys.executable, "-c", "pass"], env, work)[0]}
    importing = [sys.executable, "-X", "importtime", "-c", "import harness.cli.run"]
    log = wall(importing, env, work)[1]
    last = log.strip().splitlines()[-1]  # "import time: self | cumulative | harness.cli.run"
    figures["import"] = int(last.split("|")[1]) / 1e6
    with tempfile.TemporaryDirectory(dir=work) as folder:  # a fresh results/ each time
        command = [*console_script(tree), "run", "-q", "-b", backend, str(puzzle)]
        figures["run"], _, figures["cpu"] = wall(command, env, Path(folder))
    return figures


def check_tree(parser: argparse.ArgumentParser, tree: Path) -> None:
    """Exit with a usage error unless ``tree`` is a checkout of this project; compile it."""
    needed = ("harness/cli/run.py", "pyproject.toml")
    if not all((tree / name).is_file() for name in needed):
        parser.error(f"{tree} is not a checkout of this project (no {' or '.join(needed)})")
    folders = [str(tree / "backends"), str(tree / "harness")]
    compile_all = [sys.executable, "-m", "compileall", "-q", *folders]
    subprocess.run(compile_all, check=True, capture_output=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--against", type=Path, action="append", default=[], help="another checkout, in turn"
    )
    parser.add_argument("--backend", default="bitmask")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--dataset", type=Path, default=DATASET, help="its first puzzle is run")
    args = parser.parse_args()
    trees = [ROOT, *(tree.resolve() for tree in args.against)]
    for tree in trees:
        check_tree(parser, tree)
    times: dict[Path, list[dict[str, float]]] = {tree: [] for tree in trees}
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:  # the working folder: no checkout on sys.path
        work = Path(tmp)
        puzzle = work / "one.txt"
        lines = args.dataset.read_text().splitlines()
        puzzle.write_text(next(line for line in lines if line and line[0] != "#") + "\n")
        for tree in trees:
            one_round(tree, args.backend, puzzle, work)  # untimed: warms the disk cache
        for i in range(args.rounds):  # in turn, so the machine's drift hits every tree
            for tree in trees[i % len(trees) :] + trees[: i % len(trees)]:
                times[tree].append(one_round(tree, args.backend, puzzle, work))
    print(
        f"medians of {args.rounds} rounds, seconds; {args.backend} on the first puzzle of "
        f"{args.dataset.name}; load average {load_before:.2f} before, "
        f"{os.getloadavg()[0]:.2f} after"
    )
    print(f"{'tree':<40} " + " ".join(f"{name:>8}" for name in FIGURES))
    medians = {
        t: {f: statistics.median(r[f] for r in rounds) for f in FIGURES}
        for t, rounds in times.items()
    }
    for tree, figures in medians.items():
        print(f"{str(tree)[-40:]:<40} " + " ".join(f"{figures[f]:8.3f}" for f in FIGURES))
    for other in trees[1:]:
        ratios = {f: medians[ROOT][f] / medians[other][f] for f in FIGURES}
        label = f"this / {str(other)[-32:]}"
        print(f"{label:<40} " + " ".join(f"{ratios[f]:8.2f}" for f in FIGURES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
