"""Tests of the mrv backend (seed 000's search on the shared core)."""

from __future__ import annotations

import time

import pytest

from backends import backend_class, make_backend, parse_spec
from backends.base import SolveResult, Status
from backends.engines.search.core import search
from backends.engines.search.state import initial_state
from backends.errors import BackendOptionError
from backends.mrv import MrvBackend
from backends.puzzle import Puzzle
from tests.puzzles import (
    EASY_FIRST,
    HARDEST_FIRST,
    NO_PLACE_FOR_8,
    TOP95_FIRST,
    effort,
    plain_grid,
    public_set,
    solves,
    with_blanks,
)

# The puzzle of seed 000's write-up.
SEED_000 = "000060080020000000001000000070000102500030000000000400004201000300700600000000050"


def solve(text_or_puzzle: str | Puzzle, spec: str = "mrv", limit: int = 1) -> SolveResult:
    """Encode and solve one puzzle with mrv and the options of ``spec`` (e.g. mrv:select=first)."""
    puzzle = text_or_puzzle if isinstance(text_or_puzzle, Puzzle) else Puzzle.parse(text_or_puzzle)
    backend = MrvBackend(**parse_spec(spec)[1])
    return backend.solve(backend.encode(puzzle), limit=limit)


def test_mrv_is_registered() -> None:
    """The registry maps 'mrv' to MrvBackend."""
    assert MrvBackend is backend_class("mrv")


def test_mrv_is_available() -> None:
    """mrv needs no third-party package."""
    assert MrvBackend.unavailable_reason() is None


def test_options_from_a_spec() -> None:
    """A spec sets select and inference and keeps the default order."""
    backend = make_backend("mrv:select=first,inference=singles")
    expected = {"select": "first", "order": "ascending", "inference": "singles"}
    assert (expected, "mrv:select=first,inference=singles") == (backend.config, backend.spec)


def test_unknown_option_value_is_refused() -> None:
    """An inference the core does not have is an option error."""
    with pytest.raises(BackendOptionError, match="inference='pairs'"):
        make_backend("mrv:inference=pairs")


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("norvig-top95.txt", marks=pytest.mark.slow),
        "norvig-hardest.txt",
        "norvig-easy50.txt",
    ],
)
def test_solves_public_set(name: str) -> None:
    """mrv solves all of Norvig's top95, hardest and easy50 correctly."""
    wrong = [puzzle for puzzle in public_set(name) if not solves(puzzle, solve(puzzle).solution)]
    assert [] == wrong


def test_no_place_for_a_digit_is_unsat() -> None:
    """A 9x9 without repeated givens where 8 fits nowhere in row 1 is UNSAT."""
    puzzle = Puzzle.parse(NO_PLACE_FOR_8)
    geo = puzzle.geometry
    blocked = all(
        any(puzzle.cells[p] == 8 for p in geo.peers[cell])
        for cell in geo.rows[0]
        if not puzzle.cells[cell]
    )
    result = solve(puzzle)
    assert [] == puzzle.conflicts()
    assert blocked
    assert Status.UNSAT == result.status
    assert result.solution is None


def test_wrong_extra_given_is_unsat() -> None:
    """A unique puzzle plus a legal but wrong given has no solution, found only by search."""
    puzzle = Puzzle.parse(TOP95_FIRST)
    unique = solve(puzzle, limit=2)
    start = initial_state(puzzle)
    cell = next(c for c, d in enumerate(puzzle.cells) if not d)
    wrong = next(
        d
        for d in range(1, 10)
        if start.cands[cell] & 1 << (d - 1) and d != (unique.solution or ())[cell]
    )
    broken = puzzle.with_cell(cell, wrong)
    result = solve(broken)
    assert 1 == unique.solutions_found
    assert [] == broken.conflicts()
    assert Status.UNSAT == result.status
    assert (result.nodes or 0) > 1


def test_repeated_given_is_unsat_at_the_root() -> None:
    """Two equal givens in a row are UNSAT after one node."""
    result = solve("55" + "." * 79)
    assert (Status.UNSAT, 1) == (result.status, result.nodes)


def test_limit_two_finds_two_solutions() -> None:
    """A grid with its first band blank has several solutions; limit 2 stops at two."""
    puzzle = Puzzle(3, (0,) * 27 + tuple(plain_grid(3)[27:]))
    result = solve(puzzle, limit=2)
    outcome = search(initial_state(puzzle), limit=2)
    first, second = outcome.solutions
    assert Status.SOLVED == result.status
    assert 2 == result.solutions_found
    assert first != second
    assert solves(puzzle, first)
    assert solves(puzzle, second)


def test_limit_two_on_a_unique_puzzle_finds_one() -> None:
    """Counting to two on a unique puzzle reports one solution, SOLVED."""
    result = solve(TOP95_FIRST, limit=2)
    assert (Status.SOLVED, 1) == (result.status, result.solutions_found)


@pytest.mark.parametrize(("box", "blanks", "seed"), [(2, 0.6, 1), (4, 0.5, 4), (5, 0.4, 5)])
def test_solves_other_sizes(box: int, blanks: float, seed: int) -> None:
    """4x4, 16x16 and 25x25 puzzles made from a formula grid are solved correctly."""
    puzzle = with_blanks(plain_grid(box), blanks, seed)
    result = solve(puzzle)
    assert Status.SOLVED == result.status
    assert solves(puzzle, result.solution)


@pytest.mark.parametrize(
    ("text", "limit", "nodes"),
    [
        (TOP95_FIRST, 1, 482),
        (TOP95_FIRST, 2, 2694),
        (HARDEST_FIRST, 1, 4037),
        (EASY_FIRST, 1, 50),
    ],
)
def test_node_counts_match_the_seed_reference(text: str, limit: int, nodes: int) -> None:
    """Nodes equal the calls of seed 000's search (ascending digits), measured separately."""
    assert nodes == solve(text, limit=limit).nodes


@pytest.mark.slow
def test_node_count_on_the_seed_000_puzzle() -> None:
    """The write-up's puzzle takes 1,242,258 calls of seed 000's search to a first solution."""
    result = solve(SEED_000)
    assert (Status.SOLVED, 1_242_258) == (result.status, result.nodes)


def test_singles_solves_an_easy_puzzle_without_guessing() -> None:
    """With inference=singles, easy50's first puzzle is solved at the root."""
    assert (Status.SOLVED, 1, 0, 0) == effort(solve(EASY_FIRST, "mrv:inference=singles"))


def test_singles_needs_fewer_nodes_than_forward_checking() -> None:
    """Propagation shrinks the tree on the first top95 puzzle."""
    forward = solve(TOP95_FIRST)
    singles = solve(TOP95_FIRST, "mrv:inference=singles")
    assert (singles.nodes or 0) < (forward.nodes or 0)
    assert solves(Puzzle.parse(TOP95_FIRST), singles.solution)


def test_first_selection_without_forward_checking_times_out() -> None:
    """The naive search on the seed puzzle stops at its time limit with counters."""
    backend = MrvBackend(select="first", inference="check")
    result = backend.solve(backend.encode(Puzzle.parse(SEED_000)), time_limit=0.2)
    assert Status.TIMEOUT == result.status
    assert result.solution is None
    assert (result.nodes or 0) > 1


def test_search_deadline_in_the_past_times_out() -> None:
    """The core honours a deadline given as a perf_counter value."""
    outcome = search(initial_state(Puzzle.parse(SEED_000)), deadline=time.perf_counter())
    assert Status.TIMEOUT == outcome.status


def test_mrv_is_deterministic() -> None:
    """Two runs give the same counters and answer."""
    assert solve(HARDEST_FIRST) == solve(HARDEST_FIRST)
