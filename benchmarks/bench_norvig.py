"""CPU time and nodes of ``norvig`` on Norvig's top95, beside a reference in the same run.

Usage::

    .venv/bin/python benchmarks/bench_norvig.py [--dataset PATH] [--repeats R]

For each configuration (``norvig`` without and with ``pairs``, and the ``locked`` speed
options) it prints the total nodes over the dataset (limit 1) and the CPU time
(``time.process_time``) to encode and solve all of it, the median of ``R`` repeats. Every
answer is checked by the harness's independent checker.

Two references are printed beside them:

* the issue's figure: Norvig's own ``sudoku.py`` takes 0.86 s of CPU for top95 on this
  machine (its ``solve_all`` times ``solve(grid)``, parsing included);
* a straightforward reimplementation of the algorithm of Norvig's essay, written here from
  its description (squares named by strings, candidates as strings of digits in a dict, a
  copy of the dict per branch), timed in the same run, interleaved with the backends, so a
  noisy machine slows them alike. Its node count (calls of its search) is printed too: it
  should equal plain ``norvig``'s.

The target is a hand-written configuration at least 10x faster than Norvig's ``sudoku.py``.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import check_answer, dataset_lines, format_row, print_table, timing_parser

from backends.norvig import NorvigBackend
from backends.puzzle import Puzzle

#: Norvig's sudoku.py on top95, CPU seconds on this machine (the issue's figure).
NORVIG_SUDOKU_PY_S = 0.86
SPECS = {
    "norvig": {},
    "norvig:pairs=true": {"pairs": "true"},
    "norvig:locked=root": {"locked": "root"},
    "norvig:pairs=true,locked=root": {"pairs": "true", "locked": "root"},
}
COLUMNS = [
    ("configuration", "<32"),
    ("nodes", ">7,"),
    ("cpu s", ">8.4f"),
    ("min s", ">8.4f"),
    ("x vs 0.86 s", ">11.2f"),
    ("x vs ref", ">9.2f"),
]


# --- the reference: Norvig's essay's algorithm, written from its description ---------------


class EssaySolver:
    """Candidates as strings in a dict keyed by square names ('A1'..'I9'), as in the essay.

    Rule 1: a square reduced to one digit removes it from its peers. Rule 2: a unit with one
    place left for a digit puts it there. Search: the square with the fewest digits (more
    than one), each digit tried on a copy of the dict. ``calls`` counts calls of the search.
    """

    def __init__(self) -> None:
        rows, cols = "ABCDEFGHI", "123456789"
        self.digits = "123456789"
        self.squares = [r + c for r in rows for c in cols]
        lines = [[r + c for c in cols] for r in rows] + [[r + c for r in rows] for c in cols]
        boxes = [
            [r + c for r in band for c in stack]
            for band in ("ABC", "DEF", "GHI")
            for stack in ("123", "456", "789")
        ]
        everything = lines + boxes
        self.units = {s: [u for u in everything if s in u] for s in self.squares}
        self.peers = {s: {p for u in self.units[s] for p in u} - {s} for s in self.squares}
        self.calls = 0

    def start(self, text: str) -> dict[str, str] | None:
        """The candidates after assigning every given, or None on a contradiction."""
        values = dict.fromkeys(self.squares, self.digits)
        for square, ch in zip(self.squares, text, strict=True):
            if ch in self.digits and not self.put(values, square, ch):
                return None
        return values

    def put(self, values: dict[str, str], square: str, digit: str) -> bool:
        """Make ``digit`` the only candidate of ``square`` by removing every other one."""
        return all(self.drop(values, square, other) for other in values[square] if other != digit)

    def drop(self, values: dict[str, str], square: str, digit: str) -> bool:
        """Remove one candidate and apply both rules; False on a contradiction."""
        if digit not in values[square]:
            return True
        left = values[square].replace(digit, "")
        values[square] = left
        if not left:
            return False
        if len(left) == 1 and not all(self.drop(values, p, left) for p in self.peers[square]):
            return False
        for unit in self.units[square]:
            places = [s for s in unit if digit in values[s]]
            if not places:
                return False
            if len(places) == 1 and not self.put(values, places[0], digit):
                return False
        return True

    def search(self, values: dict[str, str] | None) -> dict[str, str] | None:
        """Depth first from ``values``: the first solution, or None."""
        self.calls += 1
        if values is None:
            return None
        open_squares = [(len(values[s]), s) for s in self.squares if len(values[s]) > 1]
        if not open_squares:
            return values
        _, square = min(open_squares)
        for digit in values[square]:
            child = values.copy()
            found = self.search(child if self.put(child, square, digit) else None)
            if found is not None:
                return found
        return None

    def solve(self, text: str) -> tuple[int, ...] | None:
        """The solution of a one-line 9x9 puzzle as digits, or None."""
        found = self.search(self.start(text))
        return None if found is None else tuple(int(found[s]) for s in self.squares)


# --- timing ----------------------------------------------------------------------------------


def time_backend(spec: str, puzzles: list[Puzzle]) -> tuple[int, float]:
    """(total nodes, CPU seconds) to encode and solve every puzzle; answers checked."""
    backend = NorvigBackend(**SPECS[spec])
    nodes = 0
    start = time.process_time()
    results = [backend.solve(backend.encode(p)) for p in puzzles]
    cpu = time.process_time() - start
    for puzzle, result in zip(puzzles, results, strict=True):
        check_answer(spec, puzzle, result.solution)
        nodes += result.nodes or 0
    return nodes, cpu


def time_reference(lines: list[str], puzzles: list[Puzzle]) -> tuple[int, float]:
    """(total search calls, CPU seconds) of the essay reimplementation; answers checked."""
    solver = EssaySolver()
    start = time.process_time()
    answers = [solver.solve(line) for line in lines]
    cpu = time.process_time() - start
    for puzzle, answer in zip(puzzles, answers, strict=True):
        check_answer("the reference", puzzle, answer)
    return solver.calls, cpu


def main(argv: list[str] | None = None) -> int:
    parser = timing_parser(__doc__.split("\n\n")[0], repeats=7)
    args = parser.parse_args(argv)
    lines = [line.replace("0", ".") for line in dataset_lines(args.dataset)]
    puzzles = [Puzzle.parse(line) for line in lines]
    names = [*SPECS, "reference"]
    cpus: dict[str, list[float]] = {name: [] for name in names}
    nodes: dict[str, int] = {}
    repeats = max(1, args.repeats)
    for spec in SPECS:  # warm-up: tables and caches, untimed
        time_backend(spec, puzzles[:2])
    for repeat in range(repeats):
        shift = repeat % len(names)  # rotate who goes first
        for name in names[shift:] + names[:shift]:
            if name == "reference":
                nodes[name], cpu = time_reference(lines, puzzles)
            else:
                nodes[name], cpu = time_backend(name, puzzles)
            cpus[name].append(cpu)

    median = {name: statistics.median(times) for name, times in cpus.items()}
    reference = median["reference"]
    print(
        f"{args.dataset.name}: {len(puzzles)} puzzles, limit 1, encode + solve, "
        f"CPU seconds (process_time), median of {repeats} interleaved runs"
    )
    print_table(
        COLUMNS,
        [
            (
                "reference (essay reimplemented)" if name == "reference" else name,
                nodes[name],
                median[name],
                min(cpus[name]),
                NORVIG_SUDOKU_PY_S / median[name],
                reference / median[name],
            )
            for name in names
        ],
        rule=True,
    )
    issue = ("Norvig sudoku.py (issue figure)", 6222, NORVIG_SUDOKU_PY_S)
    print(format_row(COLUMNS[:3], issue))
    fastest = min(SPECS, key=median.__getitem__)
    best = median[fastest]
    print(
        f"\nfastest: {fastest}: {NORVIG_SUDOKU_PY_S / best:.1f}x faster than sudoku.py's "
        f"0.86 s (target 10x = {NORVIG_SUDOKU_PY_S / 10:.3f} s), "
        f"{reference / best:.1f}x faster than the reimplementation in this run"
    )
    print(
        f"node targets: norvig {nodes['norvig']:,} (at most 6,222), "
        f"norvig:pairs=true {nodes['norvig:pairs=true']:,} (at most 2,263)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
