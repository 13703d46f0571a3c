"""A short run's tables in plain Python equal numpy's for the same rows."""

from __future__ import annotations

import math
import random
import subprocess
import sys
from pathlib import Path

import pytest
from harness.results.compact import CompactRows

from backends.base import Status
from harness.tables import few, render, summary

ROOT = Path(__file__).resolve().parents[1]
STATUSES = [s.value for s in Status]
#: Statistics that are means: the plain sum is exactly rounded, numpy's pairwise.
MEANS = ("mean_ms", "nodes_mean", "guesses_per_puzzle")


def maybe(rng: random.Random, value: float) -> float | str:
    """``value``, or an empty cell one time in five."""
    return "" if rng.random() < 0.2 else value


def random_rows(seed: int, count: int, natives: bool = False) -> CompactRows:
    """``count`` rows of a run of several backends, datasets and sizes, statuses and
    unknown values mixed."""
    rng = random.Random(seed)
    rows = CompactRows(limit=1)
    if natives:
        rows.add_native(["conflicts"])
    sizes = {"a.txt": (9,), "b.txt": (4, 9), "c.txt": (16,)}
    for n in range(count):
        dataset = rng.choice(sorted(sizes))
        row = {
            "dataset": dataset,
            "line": rng.randrange(1, 30),
            "backend": rng.choice(["mrv", "bitmask", "pycosat"]),
            "repeat": 0,
            "size": rng.choice(sizes[dataset]) if rng.random() < 0.95 else "",
            "status": rng.choice(STATUSES[:3] + ["SOLVED"] * 6),
            "solutions": 1,
            "encode_s": maybe(rng, rng.random() / 1000),
            "solve_s": maybe(rng, rng.lognormvariate(-7, 1)),
            "solve_cpu_s": maybe(rng, rng.random() / 100),
            "own_solve_s": maybe(rng, rng.random() / 100) if n % 3 else "",
            "nodes": maybe(rng, float(rng.randrange(0, 50))),
            "guesses": maybe(rng, float(rng.randrange(0, 4))),
        }
        if natives:
            row["conflicts"] = maybe(rng, float(rng.randrange(100)))
        rows.add(row)
    return rows


def same(expected: list[dict], actual: list[dict]) -> bool:
    """Equal tables: the same rows, keys and values (NaN equal to NaN; means to 1e-12)."""
    if [list(r) for r in expected] != [list(r) for r in actual]:
        return False
    for want, got in zip(expected, actual, strict=True):
        for key, value in want.items():
            other = got[key]
            if isinstance(value, float) and value != value:
                if not (isinstance(other, float) and other != other):
                    return False
            elif key in MEANS:
                if not math.isclose(value, other, rel_tol=1e-12):
                    return False
            elif value != other:
                return False
    return True


@pytest.mark.parametrize("seed", range(8))
def test_summary_equals_numpy(seed: int) -> None:
    """The plain summary of random rows equals numpy's, row for row."""
    rows = random_rows(seed, 1 + seed * 37)
    expected = summary.summary(summary.run_puzzles(rows))
    assert same(expected, few.summary(rows))


def test_one_backend_equals_numpy() -> None:
    """One backend on one dataset: the same table as numpy's."""
    rows = CompactRows(limit=1)
    for line in range(1, 8):
        times = {"solve_s": line / 1000, "nodes": float(line % 3), "guesses": 0.0}
        rows.add(
            {"dataset": "d", "line": line, "backend": "b", "repeat": 0, "size": 9}
            | {"status": "SOLVED", **times}
        )
    assert same(summary.summary(summary.run_puzzles(rows)), few.summary(rows))


@pytest.mark.parametrize("seed", range(4))
def test_native_summary_equals_numpy(seed: int) -> None:
    """The plain native statistics of random rows equal numpy's."""
    rows = random_rows(seed, 40 + seed * 50, natives=True)
    expected = summary.native_summary(summary.run_puzzles(rows))
    assert same(expected, few.native_summary(rows))


def test_printed_tables_equal_numpy() -> None:
    """What a short run prints from its plain tables is what numpy's would print."""
    rows = random_rows(99, 300)
    expected = render.render(summary.summary(summary.run_puzzles(rows)))
    assert expected == render.render(few.summary(rows))


def test_fits_short_runs_without_repeats() -> None:
    """Fewer rows than a compact block, no repeat: plain; a repeat: numpy's."""
    rows = random_rows(1, 10)
    fitted = few.fits(rows)
    rows.add({"dataset": "d", "line": 1, "backend": "b", "repeat": 1, "status": "SOLVED"})
    assert (True, False) == (fitted, few.fits(rows))


def test_short_run_does_not_import_numpy(tmp_path: Path) -> None:
    """A one-puzzle run prints its tables without importing numpy."""
    puzzle = tmp_path / "one.txt"
    lines = (ROOT / "datasets" / "hard95.txt").read_text().splitlines()
    puzzle.write_text(next(line for line in lines if not line.startswith("#")) + "\n")
    script = (
        "import os, sys\n"
        "from harness.cli.entry import main\n"
        "exit_now = os._exit\n"
        "os._exit = lambda code: (print('numpy' in sys.modules), exit_now(code))\n"
        f"out = {str(tmp_path / 'r.csv')!r}\n"
        f"sys.argv = ['harness', 'run', '-q', '-b', 'bitmask', '--out', out, {str(puzzle)!r}]\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert (0, "False") == (done.returncode, done.stdout.strip().splitlines()[-1])
