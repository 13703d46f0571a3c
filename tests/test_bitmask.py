"""Tests of the bitmask backend: Norvig's rules on flat int masks, locked candidates, counters."""

from __future__ import annotations

import pytest

from backends import backend_class, make_backend
from backends.base import SolveResult, Status
from backends.bitmask import BitmaskBackend, root, settle, tables
from backends.errors import BackendOptionError
from backends.puzzle import Puzzle
from harness.check.checker import check_solution
from tests.puzzles import (
    EASY_FIRST,
    HARDEST_FIRST,
    NO_PLACE_FOR_8,
    WRONG_GIVEN,
    duplicate_given,
    effort,
    formula_grid,
    many_solutions,
    no_digit_left,
    public_set,
    with_blanks,
)

#: Norvig's "impossible" puzzle: no solution, and a long search to prove it.
IMPOSSIBLE = ".....5.8....6.1.43..........1.5........1.6...3.......553.....61........4........."


def solve(puzzle: Puzzle | str, spec: str = "bitmask", limit: int = 1, **kw: float) -> SolveResult:
    """Encode and solve one puzzle (or its text) with the backend ``spec`` names."""
    puzzle = puzzle if isinstance(puzzle, Puzzle) else Puzzle.parse(puzzle)
    backend = make_backend(spec)
    return backend.solve(backend.encode(puzzle), limit=limit, **kw)


def consistent(puzzle: Puzzle, spec: str = "bitmask:locked=none") -> bool:
    """After the root's propagation, each position mask lists exactly the unit's cells whose
    candidates hold the digit (the invariant the search relies on)."""
    encoded = root(puzzle)
    t, state = encoded.tables, encoded.state
    assert state is not None
    cand, pos, _ = state = (state[0][:], state[1][:], state[2][:])
    assert settle(t, state, list(encoded.queue), spec.endswith("all"))
    geo = puzzle.geometry
    return all(
        pos[u // t.n * t.n * t.n + d * t.n + u % t.n]
        == sum(1 << i for i, c in enumerate(unit) if cand[c] >> d & 1)
        for d in range(t.n)
        for u, unit in enumerate(geo.units)
    )


def test_bitmask_is_registered() -> None:
    """The registry maps 'bitmask' to BitmaskBackend."""
    assert BitmaskBackend is backend_class("bitmask")


def test_unknown_option_lists_the_valid_ones() -> None:
    """An unknown locked mode is refused with the valid choices."""
    with pytest.raises(BackendOptionError, match="root, all, none"):
        make_backend("bitmask:locked=sometimes")


@pytest.mark.parametrize(("name", "expected"), [("top95", 6222), ("hardest", 110), ("easy50", 78)])
def test_norvig_rules_alone_try_norvigs_values(name: str, expected: int) -> None:
    """locked=none,ties=1 tries as many values as Norvig's sudoku.py (calls of his search)."""
    puzzles = public_set(f"norvig-{name}.txt")
    results = [solve(p, "bitmask:locked=none,ties=1") for p in puzzles]
    wrong = [
        p for p, r in zip(puzzles, results, strict=True) if check_solution(p.cells, r.solution)
    ]
    assert ([], expected) == (wrong, sum(r.nodes or 0 for r in results))


@pytest.mark.parametrize(
    "spec", ["bitmask", "bitmask:locked=all", "bitmask:locked=none", "bitmask:ties=1"]
)
def test_every_mode_solves_the_hardest(spec: str) -> None:
    """Each locked mode solves Norvig's hardest first puzzle, checked independently."""
    result = solve(HARDEST_FIRST, spec)
    assert (Status.SOLVED, None) == (
        result.status,
        check_solution(Puzzle.parse(HARDEST_FIRST).cells, result.solution),
    )


@pytest.mark.parametrize("text", ["0", "-2", "three"])
def test_ties_must_be_a_whole_number_from_one(text: str) -> None:
    """ties below 1, or not a number, is refused with what it expects."""
    with pytest.raises(BackendOptionError, match="whole number, 1 or more"):
        make_backend(f"bitmask:ties={text}")


def test_propagation_alone_is_one_node() -> None:
    """A puzzle the singles solve scores 1 node, no guess, no backtrack."""
    assert (Status.SOLVED, 1, 0, 0) == effort(solve(EASY_FIRST))


@pytest.mark.parametrize(
    "puzzle",
    [Puzzle.parse(NO_PLACE_FOR_8), duplicate_given(3), no_digit_left(3), duplicate_given(5)],
)
def test_root_contradictions_are_unsat_at_the_root(puzzle: Puzzle) -> None:
    """Givens that already contradict each other: UNSAT with the root as the only node."""
    assert (Status.UNSAT, 1, 0, 0) == effort(solve(puzzle, limit=2))


def test_unsat_after_search_counts_every_value_as_a_backtrack() -> None:
    """An exhausted search leaves every value it tried: backtracks = nodes - 1."""
    result = solve(WRONG_GIVEN, "bitmask:locked=none", limit=2)
    assert (Status.UNSAT, result.nodes - 1) == (result.status, result.backtracks)


@pytest.mark.parametrize("box", [2, 3, 4])
def test_limit_two_finds_two_solutions(box: int) -> None:
    """Under limit 2 a puzzle with several solutions reports two, the first one valid."""
    puzzle = many_solutions(box)
    result = solve(puzzle, limit=2)
    assert (Status.SOLVED, 2, None) == (
        result.status,
        result.solutions_found,
        check_solution(puzzle.cells, result.solution),
    )


@pytest.mark.parametrize("box", [2, 3, 4, 5])
def test_solves_every_size(box: int) -> None:
    """A formula grid with half its cells emptied is solved at every box size."""
    puzzle = with_blanks(formula_grid(box, seed=box), 0.5, seed=box)
    result = solve(puzzle, limit=2)
    assert (Status.SOLVED, None) == (result.status, check_solution(puzzle.cells, result.solution))


@pytest.mark.parametrize("text", [HARDEST_FIRST, EASY_FIRST])
def test_position_masks_match_candidates(text: str) -> None:
    """The root's propagation keeps every position mask equal to its cells' candidates."""
    assert consistent(Puzzle.parse(text))


def test_time_limit_gives_timeout() -> None:
    """A 0.2 s limit on Norvig's impossible puzzle ends soon with TIMEOUT and its counters."""
    result = solve(IMPOSSIBLE, "bitmask:locked=none", limit=2, time_limit=0.2)
    assert (Status.TIMEOUT, True) == (result.status, (result.nodes or 0) > 1)


def test_tables_are_shared() -> None:
    """The tables of one box size are built once and shared."""
    assert tables(3) is root(Puzzle.parse(EASY_FIRST)).tables
