"""Tests for the pycosat backend (backends/pycosat_backend.py)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from backends.base import SolveResult, Status
from backends.errors import BackendOptionError, UnknownStatusError
from backends.puzzle import Puzzle
from backends.pycosat_backend import PycosatBackend, translate
from tests.puzzles import (
    duplicate_given,
    formula_grid,
    many_solutions,
    no_digit_left,
    solves,
    with_blanks,
)

if PycosatBackend.available() is not None:
    pytest.skip(
        f"pycosat backend unavailable: {PycosatBackend.available()}", allow_module_level=True
    )

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
needs_datasets = pytest.mark.skipif(
    not DATASETS.is_dir(), reason=f"public datasets not found at {DATASETS}"
)
ENCODINGS = ("minimal", "efficient", "extended")
HARD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


#: UNSAT that needs search: Norvig's first "hardest" puzzle (unique) with r1c3 set to 1, a
#: digit no peer holds but the unique solution does not have there.
WRONG_GIVEN = Puzzle.parse(
    "851..24..72......9..4.........1.7..23.5...9...4...........8..7..17..........36.4."
)


def run(backend: PycosatBackend, puzzle: Puzzle, limit: int = 1) -> SolveResult:
    """Encode then solve."""
    return backend.solve(backend.encode(puzzle), limit=limit)


def test_available() -> None:
    """With pycosat installed the backend is available."""
    assert PycosatBackend.available() is None


@pytest.mark.parametrize("box", [2, 3, 4, 5])
def test_solves_every_size(box: int) -> None:
    """A formula grid with half its cells emptied is solved, for 4x4 to 25x25."""
    puzzle = with_blanks(formula_grid(box, seed=box), 0.5, seed=box)
    result = run(PycosatBackend(), puzzle)
    assert Status.SOLVED == result.status
    assert solves(puzzle, result.solution)


@pytest.mark.parametrize("box", [2, 3, 4])
@pytest.mark.parametrize("encoding", ENCODINGS)
def test_unreduced_encodings_solve(box: int, encoding: str) -> None:
    """Every encoding without reduce solves 4x4 to 16x16 formula puzzles."""
    puzzle = with_blanks(formula_grid(box, seed=box), 0.5, seed=box)
    result = run(PycosatBackend(encoding=encoding, reduce=False), puzzle)
    assert Status.SOLVED == result.status
    assert solves(puzzle, result.solution)


@needs_datasets
@pytest.mark.parametrize("reduce", [False, True])
@pytest.mark.parametrize("encoding", ENCODINGS)
def test_norvig_hardest_unique(encoding: str, reduce: bool) -> None:
    """Each of Norvig's hardest is solved and proven unique, under every encoding."""
    backend = PycosatBackend(encoding=encoding, reduce=reduce)
    for line in (DATASETS / "norvig-hardest.txt").read_text().split():
        puzzle = Puzzle.parse(line)
        result = run(backend, puzzle, limit=2)
        assert (Status.SOLVED, 1) == (result.status, result.solutions_found)
        assert solves(puzzle, result.solution)


@pytest.mark.parametrize("reduce", [False, True])
@pytest.mark.parametrize("box", [2, 3, 4, 5])
def test_duplicate_givens_unsat(box: int, reduce: bool) -> None:
    """Two equal givens in a row give UNSAT and no solution."""
    result = run(PycosatBackend(reduce=reduce), duplicate_given(box))
    assert (Status.UNSAT, None, 0) == (result.status, result.solution, result.solutions_found)


@pytest.mark.parametrize("reduce", [False, True])
@pytest.mark.parametrize("box", [2, 3, 4, 5])
def test_cell_without_digit_unsat(box: int, reduce: bool) -> None:
    """A cell whose peers hold every digit gives UNSAT, without equal givens."""
    puzzle = no_digit_left(box)
    assert [] == puzzle.conflicts()
    assert Status.UNSAT == run(PycosatBackend(reduce=reduce), puzzle).status


@pytest.mark.parametrize("reduce", [False, True])
@pytest.mark.parametrize("encoding", ENCODINGS)
def test_unsat_found_by_search(encoding: str, reduce: bool) -> None:
    """A puzzle whose contradiction the reduction cannot see is UNSAT from PicoSAT itself."""
    backend = PycosatBackend(encoding=encoding, reduce=reduce)
    encoded = backend.encode(WRONG_GIVEN)
    assert "" == encoded.contradiction
    assert Status.UNSAT == backend.solve(encoded).status


@pytest.mark.parametrize("reduce", [False, True])
@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("box", [2, 3, 4])
def test_limit_two_on_many_solutions(box: int, encoding: str, reduce: bool) -> None:
    """An empty 4x4/9x9, or a 16x16 with 60% blanks, has 2 solutions under limit 2, 1 under 1."""
    puzzle = many_solutions(box)
    backend = PycosatBackend(encoding=encoding, reduce=reduce)
    two = run(backend, puzzle, limit=2)
    one = run(backend, puzzle, limit=1)
    assert (Status.SOLVED, 2) == (two.status, two.solutions_found)
    assert (Status.SOLVED, 1) == (one.status, one.solutions_found)
    assert solves(puzzle, two.solution)


def test_limit_three_finds_three_distinct() -> None:
    """The blocking clauses move on: limit 3 on a puzzle with exactly two solutions gives 2."""
    puzzle = Puzzle.parse("....34.2..43432.")  # four cells can swap 1 and 2, no more
    result = run(PycosatBackend(), puzzle, limit=3)
    assert (Status.SOLVED, 2) == (result.status, result.solutions_found)


@pytest.mark.parametrize("reduce", [False, True])
def test_complete_grid_is_unique(reduce: bool) -> None:
    """A fully given valid grid is its own unique solution (reduce leaves no variable)."""
    puzzle = Puzzle.from_digits(tuple(formula_grid(3)))
    result = run(PycosatBackend(reduce=reduce), puzzle, limit=2)
    assert (Status.SOLVED, 1, puzzle.cells) == (
        result.status,
        result.solutions_found,
        result.solution,
    )


def test_native_counts_and_no_search_counters() -> None:
    """native has the CNF's variables and clauses; nodes/guesses/backtracks stay None."""
    backend = PycosatBackend(encoding="efficient", reduce=False)
    encoded = backend.encode(Puzzle.parse(HARD))
    result = backend.solve(encoded)
    assert {"variables": 729, "clauses": 10287 + 17} == dict(result.native)
    assert (None, None, None) == (result.nodes, result.guesses, result.backtracks)


def test_prop_limit_gives_unknown() -> None:
    """A one-propagation budget stops PicoSAT on the minimal encoding: UNKNOWN."""
    result = run(PycosatBackend(prop_limit="1", encoding="minimal"), Puzzle.parse(HARD))
    assert (Status.UNKNOWN, None) == (result.status, result.solution)


def test_translate_answers() -> None:
    """pycosat's answers map to SOLVED with the model, UNSAT and UNKNOWN."""
    assert (Status.SOLVED, [1, -2]) == translate([1, -2])
    assert (Status.UNSAT, None) == translate("UNSAT")
    assert (Status.UNKNOWN, None) == translate("UNKNOWN")


def test_translate_refuses_unknown_answer() -> None:
    """An unexpected answer raises UnknownStatusError carrying the value."""
    with pytest.raises(UnknownStatusError, match="'SATISFIABLE'"):
        translate("SATISFIABLE")


def test_options_and_spec() -> None:
    """Options parse from text and non-default ones appear in the spec."""
    assert "pycosat" == PycosatBackend().spec
    spec = PycosatBackend(encoding="minimal", reduce="false").spec
    assert "pycosat:encoding=minimal,reduce=false" == spec


@pytest.mark.parametrize("option", [{"encoding": "tiny"}, {"prop_limit": "-1"}, {"x": "1"}])
def test_bad_options_refused(option: dict[str, str]) -> None:
    """An unknown encoding, a negative prop_limit or an unknown option is refused."""
    with pytest.raises(BackendOptionError):
        PycosatBackend(**option)


def test_backend_and_result_pickle() -> None:
    """The backend (options only) and its result survive pickling, for worker processes."""
    backend = pickle.loads(pickle.dumps(PycosatBackend(encoding="minimal")))
    result = run(backend, Puzzle.parse(HARD))
    assert result == pickle.loads(pickle.dumps(result))
