"""Our backends against Norvig's own ``sudoku.py``, unmodified, side by side in one process.

Usage::

    .venv/bin/python benchmarks/bench_norvig.py [--rounds R] [--backend SPEC ...] [--set NAME ...]

The peer is ``../shared/peers/norvig/sudoku.py`` (see ``../shared/peers/README.md``): it is
imported as it is and timed as its own ``time_solve`` times it, ``solve(grid)`` under
``time.process_time``. Our backends are timed the same way, ``encode`` and ``solve`` together.
On each dataset (Norvig's top95, hardest and easy50), every contestant solves the whole set
once per round, in alternating rounds (R >= 7), the order rotated each round so that a noisy
shared machine hits them all alike; garbage is collected before each timed pass. Answers are
checked by the harness's checker outside the timed passes.

For each contestant it prints the nodes (Norvig's: calls of his ``search``, counted in an
untimed pass by wrapping it; ours: root plus values tried), the median and minimum CPU
seconds per pass, and the median of the per-round ratios Norvig's time / ours. The last
lines give the fastest backend's ratios against their targets (at least 15x on top95 and
10x on hardest and easy50). Without ``../shared/peers`` it skips, saying why.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import DATASETS, FASTEST, PROJECT, check_answer, dataset_lines, print_table

from backends import make_backend
from backends.base import Backend
from backends.puzzle import Puzzle

PEER = PROJECT.parent / "shared" / "peers" / "norvig"
SETS = ("top95", "hardest", "easy50")
DEFAULT_BACKENDS = (
    FASTEST,
    "bitmask:locked=none,ties=1",
    "bitmask:locked=all",
    "norvig:pairs=true,locked=root",
    "norvig",
)
TARGETS = {"top95": 15.0, "hardest": 10.0, "easy50": 10.0}
MIN_ROUNDS = 7
COLUMNS = [
    ("contestant", "<32"),
    ("nodes", ">7,"),
    ("median s", ">9.4f"),
    ("min s", ">9.4f"),
    ("x Norvig", ">9.2f"),
]


def load_peer() -> ModuleType | None:
    """Norvig's ``sudoku`` module, imported from ../shared/peers, or None when absent."""
    if not (PEER / "sudoku.py").is_file():
        return None
    sys.path.insert(0, str(PEER))
    try:
        return importlib.import_module("sudoku")
    finally:
        sys.path.remove(str(PEER))


def peer_nodes(sudoku: ModuleType, lines: list[str]) -> int:
    """Calls of Norvig's ``search`` over a set (untimed: the counting wrapper costs time)."""
    search = sudoku.search
    calls = 0

    def counting(values: object) -> object:
        nonlocal calls
        calls += 1
        return search(values)

    sudoku.search = counting
    try:
        for line in lines:
            sudoku.solve(line)
    finally:
        sudoku.search = search
    return calls


def peer_answer(sudoku: ModuleType, values: object) -> tuple[int, ...] | None:
    """Norvig's answer (a dict of squares to digits, or False) as digits, when he says solved."""
    if not sudoku.solved(values):
        return None
    return tuple(int(values[square]) for square in sudoku.squares)  # type: ignore[index]


def timed(run: Callable[[], list]) -> tuple[float, list]:
    """CPU seconds of one pass over a set (garbage collected first), and its answers."""
    gc.collect()
    start = time.process_time()
    answers = run()
    return time.process_time() - start, answers


def ours(backend: Backend, puzzles: list[Puzzle]) -> Callable[[], list]:
    """One pass of a backend: encode and solve each puzzle."""
    return lambda: [backend.solve(backend.encode(p)) for p in puzzles]


def bench_set(sudoku: ModuleType, name: str, specs: list[str], rounds: int) -> dict[str, float]:
    """Time every contestant on one dataset; print its table; the backends' median ratios."""
    lines = dataset_lines(DATASETS / f"norvig-{name}.txt")
    puzzles = [Puzzle.parse(line) for line in lines]
    backends = {spec: make_backend(spec) for spec in specs}
    passes: dict[str, Callable[[], list]] = {
        "Norvig sudoku.py": lambda: list(map(sudoku.solve, lines))
    }
    passes.update({spec: ours(b, puzzles) for spec, b in backends.items()})
    names = list(passes)
    for run in passes.values():  # warm-up, untimed: tables, caches
        run()
    times: dict[str, list[float]] = {key: [] for key in names}
    for r in range(rounds):
        shift = r % len(names)
        for key in names[shift:] + names[:shift]:
            seconds, answers = timed(passes[key])
            times[key].append(seconds)
            if r == 0:
                check(sudoku, key, puzzles, answers)
    nodes = {"Norvig sudoku.py": peer_nodes(sudoku, lines)}
    nodes.update({spec: sum(r.nodes or 0 for r in passes[spec]()) for spec in specs})
    peer = times["Norvig sudoku.py"]
    ratios = {
        key: statistics.median(p / o for p, o in zip(peer, times[key], strict=True))
        for key in names
    }
    print(f"\n{name}: {len(puzzles)} puzzles, CPU s per pass, {rounds} alternating rounds")
    rows = [
        (key, nodes[key], statistics.median(times[key]), min(times[key]), ratios[key])
        for key in names
    ]
    print_table(COLUMNS, rows, rule=True)
    return {spec: ratios[spec] for spec in specs}


def check(sudoku: ModuleType, key: str, puzzles: list[Puzzle], answers: list) -> None:
    """Stop unless every answer of a pass is right (the harness's checker)."""
    for puzzle, answer in zip(puzzles, answers, strict=True):
        if key == "Norvig sudoku.py":
            check_answer(key, puzzle, peer_answer(sudoku, answer))
        else:
            check_answer(key, puzzle, answer.solution)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9, help=f"at least {MIN_ROUNDS}")
    parser.add_argument("--backend", action="append", help="repeatable; default: several")
    parser.add_argument("--set", action="append", choices=SETS, help="repeatable; default all")
    args = parser.parse_args(argv)
    if args.rounds < MIN_ROUNDS:
        parser.error(f"--rounds must be at least {MIN_ROUNDS}")
    sudoku = load_peer()
    if sudoku is None:
        print(f"skipped: Norvig's sudoku.py not found in {PEER} (the peers are kept there)")
        return 0
    specs = args.backend or list(DEFAULT_BACKENDS)
    ratios = {name: bench_set(sudoku, name, specs, args.rounds) for name in args.set or SETS}
    fastest = FASTEST if FASTEST in specs else specs[0]
    print(f"\n{fastest} against Norvig's sudoku.py (median of per-round ratios):")
    for name, by_spec in ratios.items():
        got, want = by_spec[fastest], TARGETS[name]
        verdict = "met" if got >= want else f"missed by {100 * (1 - got / want):.1f} %"
        print(f"  {name:8} {got:6.2f}x  (target {want:.0f}x: {verdict})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
