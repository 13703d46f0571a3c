"""Tests of the dlx backend: Algorithm X on dancing links, its counters, statuses and sizes."""

from __future__ import annotations

import time

import pytest

from backends import backend_class, make_backend
from backends.base import SolveResult, Status
from backends.dlx import DlxBackend, build_matrix, search
from backends.errors import BackendOptionError
from backends.puzzle import Grid, Puzzle
from harness.check.checker import check_solution
from tests.puzzles import (
    EASY_FIRST,
    HARDEST_FIRST,
    NO_PLACE_FOR_8,
    TOP95_FIRST,
    public_set,
    shipped,
)

# Norvig's "impossible" puzzle: consistent givens, no solution.
IMPOSSIBLE = ".....5.8....6.1.43..........1.5........1.6...3.......553.....61........4........."
# sizes.txt, puzzle 1 (4x4).
SMALL = "14..3...4..1...."


def solve(text_or_puzzle: str | Puzzle, limit: int = 1, **options: str) -> SolveResult:
    """Encode and solve one puzzle with dlx and ``options``."""
    puzzle = text_or_puzzle if isinstance(text_or_puzzle, Puzzle) else Puzzle.parse(text_or_puzzle)
    backend = DlxBackend(**options)
    return backend.solve(backend.encode(puzzle), limit=limit)


def counters(result: SolveResult) -> tuple[object, ...]:
    """Status, solutions and every effort counter of a result, for exact comparison."""
    return (
        result.status,
        result.solutions_found,
        result.nodes,
        result.guesses,
        result.backtracks,
        result.native["updates"],
    )


def reference_x(puzzle: Puzzle, limit: int = 1) -> tuple[object, ...]:
    """A separate Algorithm X on a dict of sets, counting as dlx documents; same tuple shape.

    Columns are ordered (kind, index, digit) with kinds cell, row, column, box, so ``min`` with
    ``(rows, column)`` is the fewest-rows column, first on ties. Rows are ``(cell, digit)``.
    One function of about 75 lines on purpose: a plain reference, read top to bottom.
    """
    geo = puzzle.geometry
    found: list[Grid] = []
    count = {"nodes": 1, "guesses": 0, "backtracks": 0, "updates": 0}
    y = {
        (cell, d): (
            (0, cell, 0),
            (1, geo.row_of[cell], d),
            (2, geo.col_of[cell], d),
            (3, geo.box_of[cell], d),
        )
        for cell in range(geo.ncells)
        for d in range(1, geo.n + 1)
    }
    x: dict[tuple[int, int, int], set[tuple[int, int]]] = {}
    for row, cols in y.items():
        for c in cols:
            x.setdefault(c, set()).add(row)
    grid = list(puzzle.cells)

    def cover(c: tuple[int, int, int]) -> set[tuple[int, int]]:
        rows = x.pop(c)
        count["updates"] += 1
        for i in rows:
            for k in y[i]:
                if k != c:
                    x[k].remove(i)
                    count["updates"] += 1
        return rows

    def uncover(c: tuple[int, int, int], rows: set[tuple[int, int]]) -> None:
        for i in rows:
            for k in y[i]:
                if k != c:
                    x[k].add(i)
        x[c] = rows

    for cell, d in enumerate(puzzle.cells):
        if d:
            if any(c not in x for c in y[cell, d]):
                return (Status.UNSAT, 0, 1, 0, 0, 0)
            for c in y[cell, d]:
                cover(c)
    count["updates"] = 0  # the givens' pre-selection is not search

    def dive() -> bool:
        if not x:
            found.append(tuple(grid))
            return len(found) >= limit
        c = min(x, key=lambda k: (len(x[k]), k))
        if not x[c]:
            count["updates"] += 1
            return False
        if len(x[c]) > 1:
            count["guesses"] += 1
        rows = cover(c)
        for row in sorted(rows):
            count["nodes"] += 1
            others = [(k, cover(k)) for k in y[row] if k != c]
            grid[row[0]] = row[1]
            if dive():
                return True
            for k, removed in reversed(others):
                uncover(k, removed)
            count["backtracks"] += 1
        uncover(c, rows)
        return False

    dive()
    status = Status.SOLVED if found else Status.UNSAT
    return (status, len(found), *count.values())


def test_dlx_is_registered() -> None:
    """The registry maps 'dlx' to DlxBackend."""
    assert DlxBackend is backend_class("dlx")


def test_dlx_needs_no_package() -> None:
    """dlx is pure Python, so it is always available."""
    assert DlxBackend.unavailable_reason() is None


def test_declares_its_native_counters() -> None:
    """updates, columns and rows are declared and reported."""
    result = solve(TOP95_FIRST)
    assert (("updates", "columns", "rows"), set(DlxBackend.native_counters)) == (
        DlxBackend.native_counters,
        set(result.native),
    )


def test_matrix_of_an_empty_grid() -> None:
    """An empty 9x9 gives Knuth's full matrix: 324 columns, 729 rows of 4 nodes each."""
    matrix = build_matrix(Puzzle(3, (0,) * 81))
    assert (324, 729, 4 * 729, 324 + 4 * 729) == (
        matrix.ncols,
        matrix.nrows,
        matrix.header,
        len(matrix.up),
    )


def test_givens_are_preselected() -> None:
    """Each given removes its 4 columns and every candidate that clashes with it."""
    matrix = build_matrix(Puzzle.parse("1" + "." * 15))
    # 1 at r1c1 clashes with the 3 other digits of its cell and 1 in 7 peers (4x4 has 7 peers).
    assert (64 - 4, 64 - 1 - 3 - 7) == (matrix.ncols, matrix.nrows)


@pytest.mark.parametrize("name", ["norvig-top95.txt", "norvig-hardest.txt"])
def test_solves_public_set(name: str) -> None:
    """dlx solves all of Norvig's top95 and hardest; the independent checker accepts each."""
    problems = [
        (puzzle.to_string(), check_solution(puzzle.cells, solve(puzzle).solution))
        for puzzle in public_set(name)
    ]
    assert [] == [p for p in problems if p[1] is not None]


@pytest.mark.parametrize("puzzle", shipped("sizes.txt"), ids=lambda p: f"{p.n}x{p.n}")
def test_solves_every_size(puzzle: Puzzle) -> None:
    """Each 4x4, 9x9, 16x16 and 25x25 puzzle of datasets/sizes.txt is solved and checked."""
    result = solve(puzzle)
    assert (Status.SOLVED, None) == (result.status, check_solution(puzzle.cells, result.solution))


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        (TOP95_FIRST, 1, (Status.SOLVED, 1, 118, 15, 53, 2364)),
        (TOP95_FIRST, 2, (Status.SOLVED, 1, 386, 50, 385, 8239)),
        (HARDEST_FIRST, 1, (Status.SOLVED, 1, 158, 4, 98, 2434)),
        (EASY_FIRST, 1, (Status.SOLVED, 1, 50, 0, 0, 673)),
        (IMPOSSIBLE, 1, (Status.UNSAT, 0, 8342, 1312, 8341, 194645)),
    ],
)
def test_pinned_counters(text: str, limit: int, expected: tuple[object, ...]) -> None:
    """Status, solutions, nodes, guesses, backtracks and updates are pinned exactly."""
    assert expected == counters(solve(text, limit))


@pytest.mark.parametrize(
    ("text", "limit"),
    [
        (TOP95_FIRST, 1),
        (TOP95_FIRST, 2),
        (HARDEST_FIRST, 1),
        (EASY_FIRST, 2),
        (SMALL, 2),
        (NO_PLACE_FOR_8, 1),
        (shipped("multi.txt")[0].to_string(), 2),
    ],
)
def test_counters_match_a_separate_algorithm_x(text: str, limit: int) -> None:
    """A dict-of-sets Algorithm X with the same choices counts exactly the same."""
    puzzle = Puzzle.parse(text)
    assert reference_x(puzzle, limit) == counters(solve(puzzle, limit))


def test_forced_moves_need_no_guess() -> None:
    """A puzzle singles solve: no guess, no backtrack, one node per empty cell plus the root."""
    puzzle = Puzzle.parse(EASY_FIRST)
    result = solve(puzzle)
    empty = puzzle.cells.count(0)
    assert (Status.SOLVED, 0, 0, 1 + empty, None) == (
        result.status,
        result.guesses,
        result.backtracks,
        result.nodes,
        check_solution(puzzle.cells, result.solution),
    )


def test_complete_grid_is_solved_at_the_root() -> None:
    """A full valid grid is its own solution after the root node, with no updates."""
    full = solve(HARDEST_FIRST).solution
    assert full is not None
    result = solve(Puzzle(3, full))
    assert (Status.SOLVED, full, 1, 0) == (
        result.status,
        result.solution,
        result.nodes,
        result.native["updates"],
    )


def test_shipped_unsolvable_puzzles_are_unsat() -> None:
    """Every puzzle of datasets/unsolvable.txt is UNSAT with no solution, counting to two."""
    results = [solve(puzzle, limit=2) for puzzle in shipped("unsolvable.txt")]
    assert [(Status.UNSAT, 0, None)] * len(results) == [
        (r.status, r.solutions_found, r.solution) for r in results
    ]


def test_repeated_given_is_unsat_before_search() -> None:
    """Two equal givens in a row are UNSAT at the root: one node, no update."""
    assert (Status.UNSAT, 0, 1, 0, 0, 0) == counters(solve("55" + "." * 79))


def test_digit_with_no_place_is_unsat_at_the_root() -> None:
    """An empty column is chosen at the root: UNSAT after one node and one update."""
    assert (Status.UNSAT, 0, 1, 0, 0, 1) == counters(solve(NO_PLACE_FOR_8))


def test_limit_two_finds_two_different_solutions() -> None:
    """On each puzzle of datasets/multi.txt, limit 2 finds two distinct valid solutions."""
    for puzzle in shipped("multi.txt"):
        outcome, _ = search(build_matrix(puzzle), limit=2)
        first, second = outcome.solutions
        assert Status.SOLVED == outcome.status
        assert first != second
        assert check_solution(puzzle.cells, first) is None
        assert check_solution(puzzle.cells, second) is None


def test_limit_two_through_the_backend() -> None:
    """The backend reports 2 solutions under limit 2 and 1 under limit 1."""
    puzzle = shipped("multi.txt")[0]
    assert (2, 1) == (solve(puzzle, limit=2).solutions_found, solve(puzzle).solutions_found)


def test_limit_two_on_a_unique_puzzle_undoes_every_row() -> None:
    """Counting to two on a unique puzzle: 1 solution, and every tried row is backtracked."""
    result = solve(HARDEST_FIRST, limit=2)
    assert (Status.SOLVED, 1, (result.nodes or 0) - 1) == (
        result.status,
        result.solutions_found,
        result.backtracks,
    )


def test_matrix_is_reusable() -> None:
    """Solving one encoded matrix twice gives the same result: the search works on copies."""
    backend = DlxBackend()
    matrix = backend.encode(Puzzle.parse(TOP95_FIRST))
    assert backend.solve(matrix, limit=2) == backend.solve(matrix, limit=2)


def test_deadline_in_the_past_times_out() -> None:
    """A deadline already passed stops the search at its first look, as TIMEOUT."""
    outcome, _ = search(build_matrix(Puzzle.parse(IMPOSSIBLE)), deadline=time.perf_counter())
    assert (Status.TIMEOUT, ()) == (outcome.status, outcome.solutions)


def test_time_limit_gives_timeout_with_counters() -> None:
    """Without the S heuristic the first top95 puzzle outlasts 0.2 s: TIMEOUT, counters kept."""
    backend = DlxBackend(choose="first")
    result = backend.solve(backend.encode(Puzzle.parse(TOP95_FIRST)), time_limit=0.2)
    assert Status.TIMEOUT == result.status
    assert result.solution is None
    assert 0 == result.solutions_found
    assert (result.nodes or 0) > 1


def test_first_column_option() -> None:
    """choose=first is a valid spec and still finds a checked answer, with more nodes."""
    backend = make_backend("dlx:choose=first")
    puzzle = Puzzle.parse(EASY_FIRST)
    result = backend.solve(backend.encode(puzzle))
    assert "dlx:choose=first" == backend.spec
    assert check_solution(puzzle.cells, result.solution) is None
    assert (result.nodes or 0) > 50


def test_unknown_choice_is_refused() -> None:
    """A column rule dlx does not have is an option error naming the value."""
    with pytest.raises(BackendOptionError, match="choose='most'"):
        make_backend("dlx:choose=most")


def test_limit_below_one_is_refused() -> None:
    """limit 0 is a caller's mistake."""
    with pytest.raises(ValueError, match="limit must be 1 or more"):
        search(build_matrix(Puzzle.parse(SMALL)), limit=0)


def test_dlx_is_deterministic() -> None:
    """Two runs give the same answer and counters."""
    assert solve(HARDEST_FIRST) == solve(HARDEST_FIRST)
