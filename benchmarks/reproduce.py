"""Rerun one seed's headline comparison through the harness CLI and print its figures.

Usage::

    .venv/bin/python benchmarks/reproduce.py SEED [--out-dir DIR] [--timeout S] [--repeat R]

``SEED`` is one of 000..004 (the write-ups in ../shared/seeds/). The script prints the exact
``harness run`` command, runs it (its summary table is shown as the harness prints it), then
reads the CSV it wrote and prints the seed's figures beside the seed author's:

* **000** naive (first empty cell, no forward checking) against mrv on seed 000's puzzle:
  nodes, and the solve time or the TIMEOUT. The author: about 51 minutes against 1 minute
  (all solutions; about 2 s for the first with the fewest-candidates version).
* **001** Norvig's propagation without and with Vermeer's pairs on top95: average and max
  time per puzzle, and nodes. Vermeer: about 2x faster on average, 2.5x on the max.
* **002** plain backtracking against singles first, then backtracking (both iterative, as
  in the seed) on seed 002's puzzle: the time ratio. The author: 64 s against 6.9 s.
* **003** first empty cell against the cell with the most candidates (seed 003's choice),
  both with Norvig's propagation, on top95: nodes and time.
* **004** ac3 approach A against B (random value order, seeds 0-9, averaged as the author
  did over 10 runs) and order A-1 against A-2, in nodes on top95. The author, on 15 puzzles
  of their own: 66.8 against 355.9, and 59 against 71.

Times are CPU seconds of the encode and solve steps in the worker (``encode_cpu_s +
solve_cpu_s``), the median over the repeats of each puzzle. The CSVs go to ``--out-dir``
(default ``results/reproduce``), one new file per run.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

import pandas as pd  # noqa: E402
from common import DATASETS  # noqa: E402

from backends import make_backend  # noqa: E402
from harness.results import engine  # noqa: E402
from harness.tables import stats  # noqa: E402

TOP95 = DATASETS / "norvig-top95.txt"
#: The puzzle of seed 000's write-up.
SEED_000 = "000060080020000000001000000070000102500030000000000400004201000300700600000000050"
#: The puzzle in seed 002's script.
SEED_002 = "000000200080007090602000500070060000000901000000020040005000603090400070006000000"


@dataclass(frozen=True)
class Plan:
    """One seed's run: its puzzles, backends and harness options, and how to report."""

    title: str
    puzzles: Path | str  # a public dataset, or one puzzle written to a file
    backends: tuple[str, ...]
    timeout: float
    repeat: int
    jobs: int = 1


PLANS: dict[str, Plan] = {
    "000": Plan("naive against mrv on seed 000's puzzle", SEED_000, ("naive", "mrv"), 60.0, 1),
    "001": Plan(
        "Norvig without and with Vermeer's pairs on top95",
        TOP95,
        ("norvig", "norvig:pairs=true"),
        30.0,
        3,
    ),
    "002": Plan(
        "plain backtracking against singles first on seed 002's puzzle",
        SEED_002,
        ("naive:iterative=true", "naive:iterative=true,presolve=singles"),
        120.0,
        3,
    ),
    "003": Plan(
        "first empty cell against most candidates, with Norvig's propagation, on top95",
        TOP95,
        ("norvig:select=first", "norvig:select=max"),
        30.0,
        3,
    ),
    "004": Plan(
        "ac3 approach A against B (random order, seeds 0-9), A-1 against A-2, on top95",
        TOP95,
        (
            "ac3",
            "ac3:order=least",
            *(f"ac3:select={s},order=random,seed={k}" for s in "AB" for k in range(10)),
        ),
        30.0,
        1,
        jobs=2,
    ),
}


def harness_command() -> list[str]:
    """The ``harness`` entry point of this interpreter's environment."""
    local = Path(sys.executable).with_name("harness")
    if local.exists():
        return [str(local)]
    found = shutil.which("harness")
    if found is None:
        raise SystemExit("the harness command is not installed (pip install -e .)")
    return [found]


def shown(argv: list[str]) -> str:
    """A command as a person would type it from the project folder."""
    parts = []
    for arg in argv:
        path = Path(arg)
        if path.is_absolute() and path.is_relative_to(PROJECT):
            arg = str(path.relative_to(PROJECT))
        parts.append(shlex.quote(arg))
    return " ".join(parts)


def run_harness(seed: str, plan: Plan, out_dir: Path, timeout: float, repeat: int) -> Path:
    """Run the plan through ``harness run``; the CSV it wrote."""
    out_dir.mkdir(parents=True, exist_ok=True)
    if isinstance(plan.puzzles, Path):
        if not plan.puzzles.is_file():
            raise SystemExit(f"{plan.puzzles} is absent: this seed needs the public datasets")
        puzzles = plan.puzzles
    else:
        puzzles = out_dir / f"seed-{seed}-puzzle.txt"
        puzzles.write_text(plan.puzzles + "\n")
    out = out_dir / f"seed-{seed}-{time.strftime('%Y%m%d-%H%M%S')}.csv"
    argv = [*harness_command(), "run", str(puzzles)]
    for spec in plan.backends:
        argv += ["-b", spec]
    argv += ["--timeout", f"{timeout:g}", "--repeat", str(repeat), "-j", str(plan.jobs)]
    argv += ["--quiet", "--out", str(out)]
    print(f"$ {shown(argv)}", flush=True)
    done = subprocess.run(argv, cwd=PROJECT, check=False)
    if done.returncode not in (0, 1) or not out.is_file():
        raise SystemExit(f"harness run failed with exit code {done.returncode}")
    return out


def per_backend(csv: Path, specs: tuple[str, ...]) -> dict[str, pd.DataFrame]:
    """One row per puzzle (medians over repeats) for each of ``specs``, with ``cpu_s``.

    The CSV names each backend by its canonical spec (defaults dropped, ``pairs=true``
    shown as ``pairs=hidden``); the keys here are the specs as the plan wrote them.
    """
    with engine.read([csv]) as results:
        frame = results.frame(f"SELECT * FROM {stats.per_puzzle(results.con)}")
    frame["cpu_s"] = frame["encode_cpu_s"] + frame["solve_cpu_s"]
    groups = dict(iter(frame.groupby("backend", sort=False)))
    return {spec: groups[make_backend(spec).spec] for spec in specs}


def describe(spec: str, rows: pd.DataFrame) -> dict[str, float]:
    """Status counts, total nodes, and mean/max CPU seconds over answered puzzles."""
    answered = rows[rows["status"].isin(stats.ANSWERED)]
    figures = {
        "puzzles": len(rows),
        "solved": int((rows["status"] == "SOLVED").sum()),
        "timeouts": int((rows["status"] == "TIMEOUT").sum()),
        "nodes": float(answered["nodes"].sum()) if len(answered) else float("nan"),
        "mean_s": float(answered["cpu_s"].mean()) if len(answered) else float("nan"),
        "max_s": float(answered["cpu_s"].max()) if len(answered) else float("nan"),
    }
    status = ", ".join(f"{s} {n}" for s, n in rows["status"].value_counts().items())
    if len(answered):
        print(
            f"  {spec:<44} {status:<14} nodes {figures['nodes']:>12,.0f}   "
            f"mean {figures['mean_s'] * 1000:9.2f} ms   max {figures['max_s'] * 1000:9.2f} ms"
        )
    else:
        print(f"  {spec:<44} {status:<14} (no answer: no nodes or time to report)")
    return figures


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else "n/a"


def report(seed: str, plan: Plan, csv: Path, timeout: float) -> None:
    """Print the seed's headline figures from the CSV."""
    groups = per_backend(csv, plan.backends)
    print(f"\nseed {seed}: {plan.title}  (CPU encode + solve per puzzle)")
    if seed == "004":
        fixed = {spec: describe(spec, groups[spec]) for spec in plan.backends[:2]}
        random_nodes = {
            s: [
                float(groups[f"ac3:select={s},order=random,seed={k}"]["nodes"].sum())
                for k in range(10)
            ]
            for s in "AB"
        }
        count = fixed["ac3"]["puzzles"]
        a, b = (statistics.mean(random_nodes[s]) for s in "AB")
        print(
            f"  approach A vs B, random order, mean over seeds 0-9 of the total nodes: "
            f"{a:,.1f} vs {b:,.1f} ({b / a:.2f}x); per puzzle {a / count:.2f} vs {b / count:.2f}"
        )
        print(f"    A per seed: {[int(x) for x in random_nodes['A']]}")
        print(f"    B per seed: {[int(x) for x in random_nodes['B']]}")
        one, two = fixed["ac3"]["nodes"], fixed["ac3:order=least"]["nodes"]
        print(
            f"  order A-1 (most placed) vs A-2 (least placed), approach A: {one:,.0f} vs {two:,.0f}"
        )
        print("  seed author (15 puzzles): A 66.8 vs B 355.9; A-1 59 vs A-2 71")
        return
    first, second = plan.backends
    x, y = describe(first, groups[first]), describe(second, groups[second])
    if seed == "000":
        for spec, f in ((first, x), (second, y)):
            outcome = (
                f"TIMEOUT after {timeout:g} s"
                if f["timeouts"]
                else f"{f['nodes']:,.0f} nodes, {f['mean_s']:.3f} s CPU"
            )
            print(f"  {spec}: {outcome}")
        print("  seed author: first-cell hack 51 min (all solutions), fewest-candidates ~1 min")
    elif seed == "001":
        print(
            f"  without / with pairs: mean {ratio(x['mean_s'], y['mean_s'])}, "
            f"max {ratio(x['max_s'], y['max_s'])}, nodes {ratio(x['nodes'], y['nodes'])}"
        )
        print("  Vermeer: about 2x on the average (0.04 s vs 0.02 s), 2.5x on the max")
    elif seed == "002":
        print(
            f"  plain / singles first: time {ratio(x['mean_s'], y['mean_s'])}, nodes "
            f"{ratio(x['nodes'], y['nodes'])}"
        )
        print("  seed author: 64 s vs 6.9 s (9.3x)")
    elif seed == "003":
        print(
            f"  most candidates / first cell: nodes {ratio(y['nodes'], x['nodes'])}, "
            f"mean time {ratio(y['mean_s'], x['mean_s'])}"
        )
        print("  seed author: argues the most-candidates cell is the better choice")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("seed", choices=sorted(PLANS), help="which seed's claim to rerun")
    parser.add_argument(
        "--out-dir", type=Path, default=PROJECT / "results" / "reproduce", help="CSV folder"
    )
    parser.add_argument("--timeout", type=float, default=None, help="seconds per solve")
    parser.add_argument("--repeat", type=int, default=None, help="timed runs per puzzle")
    args = parser.parse_args(argv)
    plan = PLANS[args.seed]
    timeout = args.timeout or plan.timeout
    csv = run_harness(args.seed, plan, args.out_dir, timeout, args.repeat or plan.repeat)
    report(args.seed, plan, csv, timeout)
    print(f"\nrows: {shown([str(csv)])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
