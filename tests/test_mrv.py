"""Tests of the mrv backend (seed 000's search on the shared core)."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from backends import REGISTRY, make_backend, parse_spec
from backends.base import SolveResult, Status
from backends.errors import BackendOptionError
from backends.mrv import MrvBackend
from backends.puzzle import Puzzle
from backends.search import initial_state, search

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"

# Norvig's top95, puzzle 1.
TOP95_FIRST = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
# Norvig's hardest, puzzle 1.
HARDEST_FIRST = "85...24..72......9..4.........1.7..23.5...9...4...........8..7..17..........36.4."
# The puzzle of seed 000's write-up.
SEED_000 = "000060080020000000001000000070000102500030000000000400004201000300700600000000050"
# Norvig's easy50, puzzle 1.
EASY_FIRST = "003020600900305001001806400008102900700000008006708200002609500800203009005010300"
# Row 1 holds 1-7; 8 sits in the columns of both its empty cells, so 8 has no place there.
NO_PLACE_FOR_8 = "1234567.." + "." * 18 + ".......8." + "." * 18 + "........8" + "." * 18


def lines_of(name: str) -> list[str]:
    """The puzzles of a public dataset file, or a skip when the datasets are absent."""
    path = DATASETS / name
    if not path.is_file():
        pytest.skip(f"public dataset {path} is absent (needs /work/shared/datasets)")
    return [line.strip() for line in path.read_text().splitlines() if line.strip()]


def is_valid_completion(givens: tuple[int, ...], answer: tuple[int, ...] | None) -> bool:
    """Independent check: every given kept, each row/column/box holds each digit once."""
    if answer is None or len(answer) != len(givens):
        return False
    n = round(len(givens) ** 0.5)
    box = round(n**0.5)
    if any(g and g != a for g, a in zip(givens, answer, strict=True)):
        return False
    digits = set(range(1, n + 1))
    for i in range(n):
        row = {answer[i * n + c] for c in range(n)}
        col = {answer[r * n + i] for r in range(n)}
        top, left = i // box * box, i % box * box
        square = {answer[(top + r) * n + left + c] for r in range(box) for c in range(box)}
        if not row == col == square == digits:
            return False
    return True


def formula_puzzle(box: int, blank_fraction: float, seed: int) -> Puzzle:
    """A valid full grid made by a formula, with a seeded random fraction of cells blanked."""
    n = box * box
    cells = [(r % box * box + r // box + c) % n + 1 for r in range(n) for c in range(n)]
    for cell in random.Random(seed).sample(range(n * n), int(blank_fraction * n * n)):
        cells[cell] = 0
    return Puzzle(box, tuple(cells))


def solve(text_or_puzzle: str | Puzzle, spec: str = "mrv", limit: int = 1) -> SolveResult:
    """Encode and solve one puzzle with mrv and the options of ``spec`` (e.g. mrv:select=first)."""
    puzzle = text_or_puzzle if isinstance(text_or_puzzle, Puzzle) else Puzzle.parse(text_or_puzzle)
    backend = MrvBackend(**parse_spec(spec)[1])
    return backend.solve(backend.encode(puzzle), limit=limit)


def test_mrv_is_registered() -> None:
    """The registry maps 'mrv' to MrvBackend."""
    assert MrvBackend is REGISTRY["mrv"]


def test_mrv_is_available() -> None:
    """mrv needs no third-party package."""
    assert MrvBackend.available() is None


def test_options_from_a_spec() -> None:
    """A spec sets select and inference and keeps the default order."""
    backend = make_backend("mrv:select=first,inference=singles")
    expected = {"select": "first", "order": "ascending", "inference": "singles"}
    assert (expected, "mrv:select=first,inference=singles") == (backend.config, backend.spec)


def test_unknown_option_value_is_refused() -> None:
    """An inference the core does not have is an option error."""
    with pytest.raises(BackendOptionError, match="inference='pairs'"):
        make_backend("mrv:inference=pairs")


@pytest.mark.slow
def test_solves_top95() -> None:
    """mrv solves all of Norvig's top95 correctly."""
    lines = lines_of("norvig-top95.txt")
    wrong = [
        text
        for text in lines
        if not is_valid_completion(Puzzle.parse(text).cells, solve(text).solution)
    ]
    assert [] == wrong


def test_solves_hardest() -> None:
    """mrv solves all of Norvig's hardest correctly."""
    lines = lines_of("norvig-hardest.txt")
    wrong = [
        text
        for text in lines
        if not is_valid_completion(Puzzle.parse(text).cells, solve(text).solution)
    ]
    assert [] == wrong


def test_solves_easy50() -> None:
    """mrv solves all of Norvig's easy50 correctly."""
    lines = lines_of("norvig-easy50.txt")
    wrong = [
        text
        for text in lines
        if not is_valid_completion(Puzzle.parse(text).cells, solve(text).solution)
    ]
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
    assert ([], True, Status.UNSAT, None) == (
        puzzle.conflicts(),
        blocked,
        result.status,
        result.solution,
    )


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
    assert (1, [], Status.UNSAT, True) == (
        unique.solutions_found,
        broken.conflicts(),
        result.status,
        (result.nodes or 0) > 1,
    )


def test_repeated_given_is_unsat_at_the_root() -> None:
    """Two equal givens in a row are UNSAT after one node."""
    result = solve("55" + "." * 79)
    assert (Status.UNSAT, 1) == (result.status, result.nodes)


def test_limit_two_finds_two_solutions() -> None:
    """A grid with its first band blank has several solutions; limit 2 stops at two."""
    puzzle = Puzzle(3, (0,) * 27 + formula_puzzle(3, 0.0, 0).cells[27:])
    result = solve(puzzle, limit=2)
    outcome = search(initial_state(puzzle), limit=2)
    first, second = outcome.solutions
    assert (Status.SOLVED, 2, True, True, True) == (
        result.status,
        result.solutions_found,
        first != second,
        is_valid_completion(puzzle.cells, first),
        is_valid_completion(puzzle.cells, second),
    )


def test_limit_two_on_a_unique_puzzle_finds_one() -> None:
    """Counting to two on a unique puzzle reports one solution, SOLVED."""
    result = solve(TOP95_FIRST, limit=2)
    assert (Status.SOLVED, 1) == (result.status, result.solutions_found)


@pytest.mark.parametrize(("box", "blanks", "seed"), [(2, 0.6, 1), (4, 0.5, 4), (5, 0.4, 5)])
def test_solves_other_sizes(box: int, blanks: float, seed: int) -> None:
    """4x4, 16x16 and 25x25 puzzles made from a formula grid are solved correctly."""
    puzzle = formula_puzzle(box, blanks, seed)
    result = solve(puzzle)
    assert (Status.SOLVED, True) == (
        result.status,
        is_valid_completion(puzzle.cells, result.solution),
    )


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
    result = solve(EASY_FIRST, "mrv:inference=singles")
    assert (Status.SOLVED, 1, 0, 0) == (
        result.status,
        result.nodes,
        result.guesses,
        result.backtracks,
    )


def test_singles_needs_fewer_nodes_than_forward_checking() -> None:
    """Propagation shrinks the tree on the first top95 puzzle."""
    forward = solve(TOP95_FIRST)
    singles = solve(TOP95_FIRST, "mrv:inference=singles")
    assert (True, True) == (
        (singles.nodes or 0) < (forward.nodes or 0),
        is_valid_completion(Puzzle.parse(TOP95_FIRST).cells, singles.solution),
    )


def test_first_selection_without_forward_checking_times_out() -> None:
    """The naive search on the seed puzzle stops at its time limit with counters."""
    backend = MrvBackend(select="first", inference="check")
    result = backend.solve(backend.encode(Puzzle.parse(SEED_000)), time_limit=0.2)
    assert (Status.TIMEOUT, None, True) == (
        result.status,
        result.solution,
        (result.nodes or 0) > 1,
    )


def test_search_deadline_in_the_past_times_out() -> None:
    """The core honours a deadline given as a perf_counter value."""
    outcome = search(initial_state(Puzzle.parse(SEED_000)), deadline=time.perf_counter())
    assert Status.TIMEOUT == outcome.status


def test_mrv_is_deterministic() -> None:
    """Two runs give the same counters and answer."""
    assert solve(HARDEST_FIRST) == solve(HARDEST_FIRST)
