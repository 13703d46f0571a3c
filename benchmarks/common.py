"""Scaffolding shared by the benchmark scripts: datasets, timed runs, answer checks, tables.

benchmarks/ is not a package: each script puts the project root on ``sys.path`` and, run as
``python benchmarks/bench_X.py``, finds this module beside it (``from common import ...``).
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import takewhile
from pathlib import Path
from time import perf_counter
from typing import Any, NamedTuple, TypeVar

from backends.base import Backend, SolveResult, Status
from backends.puzzle import Puzzle
from harness.check.checker import check_solution

PROJECT = Path(__file__).resolve().parents[1]
#: The public puzzle sets, kept beside the project and never copied into it.
DATASETS = PROJECT.parent / "shared" / "datasets"
DEFAULT_DATASET = DATASETS / "norvig-top95.txt"
#: The fastest pure-Python backend (bench_norvig.py measures it against Norvig's sudoku.py):
#: the default of the benchmarks of the harness's own cost, where a faster solver leaves
#: the harness a larger share.
FASTEST = "bitmask"

K = TypeVar("K")
#: A table column: its title and the format spec of its values, e.g. ">8.2f"; the title
#: takes the alignment and width of the spec.
Column = tuple[str, str]


def timing_parser(description: str, repeats: int = 3) -> argparse.ArgumentParser:
    """The options every timing script takes: ``--dataset`` (a puzzle file) and ``--repeats``
    (timed runs of each puzzle; medians are shown)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET, help="puzzle file")
    parser.add_argument(
        "--repeats", type=int, default=repeats, help="timed runs of each puzzle (medians shown)"
    )
    return parser


# --- harness runs --------------------------------------------------------------------------


def children_cpu() -> float:
    """User + system CPU seconds of this process's ended, waited-for children (and of
    theirs): taken before and after a `harness run` subprocess, all of that run's CPU."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def harness_run(spec: str, data: Path, out: Path, *options: str) -> tuple[float, Any]:
    """``harness run -q -b SPEC [OPTIONS] --out OUT DATA`` in a subprocess (the ``harness``
    beside this interpreter): its wall seconds and its rows as a pandas frame. Exits with the
    harness's output when it fails."""
    import subprocess
    import sys

    import pandas as pd

    from harness.results.companions import log_path_for, meta_path_for

    for path in (out, meta_path_for(out), log_path_for(out)):
        path.unlink(missing_ok=True)
    harness = Path(sys.executable).with_name("harness")
    command = [str(harness), "run", "-q", "-b", spec, *options, "--out", str(out), str(data)]
    start = perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"harness run failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return wall, pd.read_csv(out)


# --- datasets ------------------------------------------------------------------------------


def dataset_lines(path: Path) -> list[str]:
    """The non-blank lines of a puzzle file; exits with a clear message when it is absent."""
    if not path.is_file():
        raise SystemExit(
            f"dataset {path} not found: this benchmark needs the public puzzle sets "
            f"in {DATASETS} (or pass --dataset PATH)"
        )
    return [line.strip() for line in path.read_text().splitlines() if line.strip()]


def load_puzzles(path: Path) -> list[Puzzle]:
    """The puzzles of a one-puzzle-a-line file; exits with a clear message when it is absent."""
    return [Puzzle.parse(line) for line in dataset_lines(path)]


# --- backends and answers ------------------------------------------------------------------


def require_available(backend_class: type[Backend]) -> None:
    """Exit with the reason when a backend's solver library is not installed."""
    reason = backend_class.unavailable_reason()
    if reason:
        raise SystemExit(f"{backend_class.name} backend unavailable: {reason}")


def check_answer(label: str, puzzle: Puzzle, answer: Sequence[int] | None) -> None:
    """Stop the benchmark unless the harness's checker accepts ``answer`` for ``puzzle``."""
    problem = check_solution(puzzle.cells, answer)
    if problem:
        raise SystemExit(f"{label} gave a wrong answer for {puzzle}: {problem}")


def check_result(label: str, puzzle: Puzzle, result: SolveResult) -> None:
    """Stop the benchmark unless ``result`` is SOLVED with an answer the checker accepts."""
    if result.status is not Status.SOLVED:
        raise SystemExit(f"{label} did not solve {puzzle}: {result.status}")
    check_answer(label, puzzle, result.solution)


# --- timed runs ----------------------------------------------------------------------------


class Run(NamedTuple):
    """One encode + solve, wall clock (``perf_counter``)."""

    encode_ms: float
    solve_ms: float
    result: SolveResult

    @property
    def total_ms(self) -> float:
        return self.encode_ms + self.solve_ms


def timed_run(backend: Backend, puzzle: Puzzle, limit: int = 1) -> Run:
    """Encode and solve ``puzzle`` once, timing each phase."""
    t0 = perf_counter()
    encoded = backend.encode(puzzle)
    t1 = perf_counter()
    result = backend.solve(encoded, limit=limit)
    t2 = perf_counter()
    return Run((t1 - t0) * 1e3, (t2 - t1) * 1e3, result)


def warm_up(backends: Iterable[Backend], puzzles: Sequence[Puzzle]) -> None:
    """Untimed: each backend solves the first puzzle of each size once (imports, caches)."""
    for backend in backends:
        for box in sorted({p.box for p in puzzles}):
            warm = next(p for p in puzzles if p.box == box)
            backend.solve(backend.encode(warm))


@dataclass
class Figures:
    """One backend's figures on a group of puzzles: per puzzle, medians of its runs' ms."""

    encode_ms: list[float]
    solve_ms: list[float]
    total_ms: list[float]
    #: The first run's result per puzzle; the counters repeat, the times do not.
    results: list[SolveResult]

    @classmethod
    def of(cls, runs: Sequence[Sequence[Run]]) -> Figures:
        """The figures of some runs, grouped by puzzle."""
        return cls(
            encode_ms=[statistics.median(r.encode_ms for r in done) for done in runs],
            solve_ms=[statistics.median(r.solve_ms for r in done) for done in runs],
            total_ms=[statistics.median(r.total_ms for r in done) for done in runs],
            results=[done[0].result for done in runs],
        )

    def total(self, counter: str) -> int:
        """The sum over the puzzles of a search counter (nodes, guesses, backtracks)."""
        return sum(getattr(r, counter) or 0 for r in self.results)

    def native(self, name: str) -> list[float]:
        """A native counter of each puzzle's result."""
        return [r.native[name] for r in self.results]


def run_interleaved(
    backends: Mapping[K, Backend], puzzles: Sequence[Puzzle], repeats: int, limit: int = 1
) -> dict[K, Figures]:
    """Every backend on every puzzle, ``repeats`` times, each answer checked.

    The backends run interleaved, puzzle by puzzle and repeat by repeat, and which one goes
    first rotates, so a noisy shared machine hits them all alike.
    """
    keys = list(backends)
    runs: dict[K, list[list[Run]]] = {key: [] for key in keys}
    for i, puzzle in enumerate(puzzles):
        for key in keys:
            runs[key].append([])
        for repeat in range(repeats):
            shift = (i + repeat) % len(keys)
            for key in keys[shift:] + keys[:shift]:
                backend = backends[key]
                run = timed_run(backend, puzzle, limit)
                check_result(backend.spec, puzzle, run.result)
                runs[key][-1].append(run)
    return {key: Figures.of(done) for key, done in runs.items()}


def median_max(values: Sequence[float]) -> tuple[float, float]:
    """The median and the max of some per-puzzle figures, side by side in a table row."""
    return statistics.median(values), max(values)


#: The columns :func:`timing_cells` fills: ms of encode, solve, and both against the best.
TIMING_COLUMNS: list[Column] = [
    ("enc med", ">8.2f"),
    ("enc max", ">8.2f"),
    ("sol med", ">8.2f"),
    ("sol max", ">8.2f"),
    ("tot med", ">8.2f"),
    ("x best", ">6.2f"),
]


def timing_cells(figures: Mapping[K, Figures]) -> dict[K, tuple[float, ...]]:
    """Per backend: encode and solve ms (median, max), the median total, total / best's."""
    totals = {key: statistics.median(f.total_ms) for key, f in figures.items()}
    best = min(totals.values())
    return {
        key: (*median_max(f.encode_ms), *median_max(f.solve_ms), totals[key], totals[key] / best)
        for key, f in figures.items()
    }


# --- tables -------------------------------------------------------------------------------


def format_row(columns: Sequence[Column], row: Sequence[object], sep: str = " ") -> str:
    """One line of a table: each value formatted with its column's spec."""
    return sep.join(format(value, spec) for value, (_, spec) in zip(row, columns, strict=True))


def print_table(
    columns: Sequence[Column],
    rows: Iterable[Sequence[object]],
    sep: str = " ",
    rule: bool = False,
) -> None:
    """The column titles (aligned and as wide as their values), a rule if asked, the rows."""
    header = sep.join(f"{title:{_width(spec)}}" for title, spec in columns)
    print(header)
    if rule:
        print("-" * len(header))
    for row in rows:
        print(format_row(columns, row, sep))


def _width(spec: str) -> str:
    """The alignment and width of a format spec: '>8.2f' gives '>8'."""
    align = spec[:1] if spec[:1] in ("<", ">", "^") else ""
    return align + "".join(takewhile(str.isdigit, spec[len(align) :]))
