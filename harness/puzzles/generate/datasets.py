"""The small shipped datasets (``unsolvable.txt``, ``multi.txt``, ``sizes.txt``) and the
variants of unique puzzles they hold: one wrong given (no solution), one needed given fewer
(several solutions)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from backends import make_backend
from backends.base import Backend
from backends.puzzle import Puzzle
from harness.puzzles.generate.carving import count_solutions
from harness.puzzles.generate.common import DEFAULT_BACKEND, GenerateError, solve_checked
from harness.puzzles.generate.options import GenerateOptions
from harness.puzzles.generate.pool import generate

#: The most solutions :func:`exact_count` counts before giving up.
EXACT_COUNT_LIMIT = 100_000
#: Where ``sizes.txt``'s big puzzles stop carving, so that ``mrv`` solves them quickly.
SIZES_MIN_GIVENS: dict[int, int] = {16: 130, 25: 360}
#: The backend that counts every solution of the multi-solution puzzles.
COUNT_BACKEND = "dlx"
#: The file names :func:`small_datasets` makes, in the order it writes them.
SMALL_DATASETS = ("unsolvable.txt", "multi.txt", "sizes.txt")


def add_wrong_given(puzzle: Puzzle, solution: Puzzle, rng: random.Random) -> Puzzle:
    """``puzzle`` plus one given that clashes with no given yet differs from ``solution``.

    For a unique puzzle the result has no duplicate givens and no solution.
    """
    geo = puzzle.geometry
    choices = [
        (cell, digit)
        for cell in range(geo.ncells)
        if not puzzle.cells[cell]
        for digit in range(1, geo.n + 1)
        if digit != solution.cells[cell] and all(puzzle.cells[p] != digit for p in geo.peers[cell])
    ]
    cell, digit = rng.choice(choices)
    return puzzle.with_cell(cell, digit)


def remove_needed_given(puzzle: Puzzle, rng: random.Random, backend: Backend) -> Puzzle:
    """``puzzle`` less one given whose removal leaves two or more solutions."""
    givens = [cell for cell in range(puzzle.geometry.ncells) if puzzle.cells[cell]]
    rng.shuffle(givens)
    for cell in givens:
        fewer = puzzle.with_cell(cell, 0)
        if count_solutions(backend, fewer) >= 2:
            return fewer
    raise GenerateError(f"no single given of {puzzle} is needed for uniqueness")


def solution_of(backend: Backend, puzzle: Puzzle) -> Puzzle:
    """The (first) solution ``backend`` finds for ``puzzle``."""
    result = solve_checked(backend, puzzle, limit=1)
    if result.solution is None:
        raise GenerateError(f"{puzzle} has no solution")
    return Puzzle(puzzle.box, tuple(result.solution))


def exact_count(backend: Backend, puzzle: Puzzle, limit: int = EXACT_COUNT_LIMIT) -> int:
    """Every solution of ``puzzle``, counted by ``backend``; an error past ``limit``."""
    found = count_solutions(backend, puzzle, limit)
    if found >= limit:
        raise GenerateError(f"{puzzle} has {limit} or more solutions; not counted exactly")
    return found


def batch(size: int, count: int, seed: int, min_givens: int = 0) -> list[Puzzle]:
    """The puzzles of ``harness generate --size SIZE --count COUNT --seed SEED``."""
    options = GenerateOptions(size=size, count=count, seed=seed, min_givens=min_givens)
    return [c.puzzle for c in generate(options).kept]


def small_datasets(seed: int = 1, tdoku: bool = False) -> dict[str, str]:
    """The texts of ``datasets/unsolvable.txt``, ``multi.txt`` and ``sizes.txt``.

    Deterministic in ``seed``; ``python -m harness.puzzles.generate DIR`` writes them into DIR.
    The header of ``multi.txt`` gives each puzzle's exact number of solutions. With
    ``tdoku`` (``--tdoku``), ``unsolvable.txt`` and ``multi.txt`` are written as tdoku's
    ``puzzle:count`` lines instead, so that ``harness run`` checks each backend's UNSAT claim
    or solution count against the file.
    """
    backend = make_backend(DEFAULT_BACKEND)
    rng = random.Random(seed)
    nine, four = batch(9, 4, seed), batch(4, 3, seed)
    flag = " --tdoku" if tdoku else ""
    made = [
        f"# Made by harness.puzzles.generate.small_datasets(seed={seed}); reproduce:"
        f" python -m harness.puzzles.generate datasets{flag}",
        f"# It starts from the puzzles of `harness generate --size 9 --count 4 --seed {seed}` and",
        f"# `harness generate --size 4 --count 3 --seed {seed}`.",
    ]
    wrong = [add_wrong_given(p, solution_of(backend, p), rng) for p in (*nine, four[0])]
    looser = [remove_needed_given(p, rng, backend) for p in (*nine[:3], *four[:2])]
    texts = [
        _unsolvable(made, wrong, tdoku),
        _multi(made, looser, tdoku),
        _sizes(seed, four, nine[:3]),
    ]
    return {
        name: "\n".join(lines) + "\n" for name, lines in zip(SMALL_DATASETS, texts, strict=True)
    }


def _unsolvable(made: list[str], wrong: list[Puzzle], tdoku: bool) -> list[str]:
    """The lines of ``unsolvable.txt``: each puzzle with one wrong given."""
    lines = [
        "# Puzzles with no solution (UNSAT), 9x9 and 4x4, none with a duplicate given.",
        *made,
        "# Each is a unique puzzle plus one wrong given that clashes with no other given",
        "# (puzzles 1-4 9x9, 5 4x4). (The readers refuse duplicate givens as bad lines.)",
    ]
    if tdoku:
        lines += [
            "# Lines are tdoku's puzzle:count form; count 0 (no solution) is what `harness run`",
            "# checks each backend's UNSAT claim against.",
        ]
    return lines + [f"{p.to_string()}{':0' if tdoku else ''}" for p in wrong]


def _multi(made: list[str], looser: list[Puzzle], tdoku: bool) -> list[str]:
    """The lines of ``multi.txt``: each puzzle one needed given fewer, with its exact count."""
    counter = make_backend(COUNT_BACKEND)
    counts = [exact_count(counter, p) for p in looser]
    lines = [
        "# Puzzles with two or more solutions, 9x9 and 4x4.",
        *made,
        "# Each is a unique minimal puzzle less one given (puzzles 1-3 9x9, 4-5 4x4).",
        f"# Exact solution counts ({COUNT_BACKEND} counted them all), in order: "
        f"{', '.join(map(str, counts))}.",
    ]
    if tdoku:
        lines += [
            "# Lines are tdoku's puzzle:count form; `harness run` checks that min(count, limit)",
            "# solutions are found.",
        ]
    return lines + [
        f"{p.to_string()}{f':{k}' if tdoku else ''}" for p, k in zip(looser, counts, strict=True)
    ]


def _sizes(seed: int, four: list[Puzzle], nine: list[Puzzle]) -> list[str]:
    """The lines of ``sizes.txt``: unique puzzles of every grid size."""
    big = {size: batch(size, 2, seed, SIZES_MIN_GIVENS[size]) for size in (16, 25)}
    return [
        "# Unique-solution puzzles of every size: 3 4x4, 3 9x9, 2 16x16, 2 25x25.",
        f"# Made by harness.puzzles.generate.small_datasets(seed={seed}); reproduce:"
        " python -m harness.puzzles.generate datasets",
        f"# It holds the output of `harness generate --seed {seed}` with --size 4 --count 3,",
        f"# --size 9 --count 3, --size 16 --count 2 --min-givens {SIZES_MIN_GIVENS[16]} and",
        f"# --size 25 --count 2 --min-givens {SIZES_MIN_GIVENS[25]}, in that order. The 16x16"
        " and 25x25",
        "# ones stop carving at that many givens, so that mrv solves each in well under 1 s.",
        *_lines(four, nine, big[16], big[25]),
    ]


def _lines(*groups: Sequence[Puzzle]) -> list[str]:
    return [p.to_string() for group in groups for p in group]
