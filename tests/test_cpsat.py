"""Tests for the CP-SAT backend (backends/cpsat.py)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from backends.base import SolveResult, Status
from backends.cpsat import CpSatBackend, translate_status
from backends.errors import BackendError, BackendOptionError, UnknownStatusError
from backends.puzzle import Puzzle
from tests.puzzles import (
    duplicate_given,
    formula_grid,
    many_solutions,
    no_digit_left,
    solves,
    with_blanks,
)

if CpSatBackend.available() is not None:
    pytest.skip(f"cpsat backend unavailable: {CpSatBackend.available()}", allow_module_level=True)

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
needs_datasets = pytest.mark.skipif(
    not DATASETS.is_dir(), reason=f"public datasets not found at {DATASETS}"
)
MODELS = ("alldiff", "boolean")
HARD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
#: UNSAT that needs search: Norvig's first "hardest" puzzle (unique) with r1c3 set to 1, a
#: digit no peer holds but the unique solution does not have there.
WRONG_GIVEN = "851..24..72......9..4.........1.7..23.5...9...4...........8..7..17..........36.4."


def run(backend: CpSatBackend, puzzle: Puzzle, limit: int = 1) -> SolveResult:
    """Encode then solve."""
    return backend.solve(backend.encode(puzzle), limit=limit)


def test_available() -> None:
    """With ortools installed the backend is available."""
    assert CpSatBackend.available() is None


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("box", [2, 3, 4, 5])
def test_solves_every_size(box: int, model: str) -> None:
    """A formula grid with 40% of its cells emptied is solved, 4x4 to 25x25, both models."""
    puzzle = with_blanks(formula_grid(box, seed=box), 0.4, seed=box)
    result = run(CpSatBackend(model=model), puzzle)
    assert Status.SOLVED == result.status
    assert solves(puzzle, result.solution)


@needs_datasets
@pytest.mark.parametrize("presolve", [True, False])
@pytest.mark.parametrize("model", MODELS)
def test_norvig_hardest_unique(model: str, presolve: bool) -> None:
    """Each of Norvig's hardest is solved and proven unique, both models, presolve on/off."""
    backend = CpSatBackend(model=model, presolve=presolve)
    for line in (DATASETS / "norvig-hardest.txt").read_text().split():
        puzzle = Puzzle.parse(line)
        result = run(backend, puzzle, limit=2)
        assert (Status.SOLVED, 1) == (result.status, result.solutions_found)
        assert solves(puzzle, result.solution)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("box", [2, 3, 4, 5])
def test_duplicate_givens_unsat(box: int, model: str) -> None:
    """Two equal givens in a row give UNSAT and no solution."""
    result = run(CpSatBackend(model=model), duplicate_given(box))
    assert (Status.UNSAT, None, 0) == (result.status, result.solution, result.solutions_found)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("box", [2, 3, 4, 5])
def test_cell_without_digit_unsat(box: int, model: str) -> None:
    """A cell whose peers hold every digit gives UNSAT, without equal givens."""
    puzzle = no_digit_left(box)
    assert [] == puzzle.conflicts()
    assert Status.UNSAT == run(CpSatBackend(model=model), puzzle).status


@pytest.mark.parametrize("presolve", [True, False])
@pytest.mark.parametrize("model", MODELS)
def test_unsat_found_by_search(model: str, presolve: bool) -> None:
    """A wrong but unconflicting given makes a hard puzzle UNSAT."""
    result = run(CpSatBackend(model=model, presolve=presolve), Puzzle.parse(WRONG_GIVEN))
    assert Status.UNSAT == result.status


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("box", [2, 3, 4])
def test_limit_two_on_many_solutions(box: int, model: str) -> None:
    """An empty 4x4/9x9, or a 16x16 with 60% blanks, has 2 solutions under limit 2, 1 under 1."""
    puzzle = many_solutions(box)
    backend = CpSatBackend(model=model)
    two = run(backend, puzzle, limit=2)
    one = run(backend, puzzle, limit=1)
    assert (Status.SOLVED, 2) == (two.status, two.solutions_found)
    assert (Status.SOLVED, 1) == (one.status, one.solutions_found)
    assert solves(puzzle, two.solution)


@pytest.mark.parametrize("model", MODELS)
def test_limit_three_on_exactly_two(model: str) -> None:
    """The exclusions accumulate: limit 3 on a puzzle with exactly two solutions gives 2."""
    puzzle = Puzzle.parse("....34.2..43432.")  # four cells can swap 1 and 2, no more
    result = run(CpSatBackend(model=model), puzzle, limit=3)
    assert (Status.SOLVED, 2, 3) == (
        result.status,
        result.solutions_found,
        result.native["solver_calls"],
    )


@pytest.mark.parametrize("model", MODELS)
def test_complete_grid_is_unique(model: str) -> None:
    """A fully given valid grid is its own unique solution."""
    puzzle = Puzzle.from_digits(tuple(formula_grid(3)))
    result = run(CpSatBackend(model=model), puzzle, limit=2)
    assert (Status.SOLVED, 1, puzzle.cells) == (
        result.status,
        result.solutions_found,
        result.solution,
    )


def test_encoded_model_is_left_as_built() -> None:
    """Solving with limit 2 does not add the exclusion to the encoded model itself."""
    backend = CpSatBackend()
    encoded = backend.encode(Puzzle.parse("." * 81))
    before = len(encoded.model.proto.constraints)
    backend.solve(encoded, limit=2)
    assert before == len(encoded.model.proto.constraints)


@pytest.mark.parametrize("model", MODELS)
def test_counters_repeat_with_one_worker_and_a_seed(model: str) -> None:
    """Two runs with presolve off give the same non-zero branches and conflicts."""
    backend = CpSatBackend(model=model, presolve=False)
    first = run(backend, Puzzle.parse(HARD), limit=2)
    second = run(backend, Puzzle.parse(HARD), limit=2)
    keys = ("num_branches", "num_conflicts", "solver_calls")
    assert [first.native[k] for k in keys] == [second.native[k] for k in keys]
    assert first.native["num_branches"] > 0


def test_native_counters_and_no_search_counters() -> None:
    """native has CP-SAT's statistics; nodes/guesses/backtracks stay None."""
    result = run(CpSatBackend(), Puzzle.parse(HARD))
    assert set(CpSatBackend.native_counters) == set(result.native)
    assert (None, None, None) == (result.nodes, result.guesses, result.backtracks)


def test_tiny_time_limit_gives_timeout() -> None:
    """A 1 ms limit on a 25x25 with 70% blanks ends in TIMEOUT, not UNKNOWN."""
    puzzle = with_blanks(formula_grid(5, seed=1), 0.7, seed=1)
    backend = CpSatBackend()
    result = backend.solve(backend.encode(puzzle), time_limit=0.001)
    assert Status.TIMEOUT == result.status


def test_invalid_model_raises_with_validation_message() -> None:
    """A model CP-SAT calls MODEL_INVALID raises BackendError with the validator's text."""
    backend = CpSatBackend()
    encoded = backend.encode(Puzzle.parse("." * 16))
    encoded.model.new_int_var(5, 3, "empty_domain")
    with pytest.raises(BackendError, match="empty_domain"):
        backend.solve(encoded)


@pytest.mark.parametrize(
    ("name", "hit", "expected"),
    [
        ("OPTIMAL", False, Status.SOLVED),
        ("FEASIBLE", False, Status.SOLVED),
        ("INFEASIBLE", False, Status.UNSAT),
        ("UNKNOWN", True, Status.TIMEOUT),
        ("UNKNOWN", False, Status.UNKNOWN),
    ],
)
def test_translate_status(name: str, hit: bool, expected: Status) -> None:
    """CP-SAT statuses map onto the backend statuses."""
    assert expected == translate_status(name, hit)


def test_translate_refuses_unknown_status() -> None:
    """An unexpected status raises UnknownStatusError carrying the value."""
    with pytest.raises(UnknownStatusError, match="'MODEL_INVALID'"):
        translate_status("MODEL_INVALID")


def test_options_and_spec() -> None:
    """Options parse from text and non-default ones appear in the spec."""
    assert "cpsat" == CpSatBackend().spec
    spec = CpSatBackend(model="boolean", presolve="false", seed="3").spec
    assert "cpsat:model=boolean,presolve=false,seed=3" == spec


@pytest.mark.parametrize("option", [{"model": "sat"}, {"presolve": "maybe"}, {"x": "1"}])
def test_bad_options_refused(option: dict[str, str]) -> None:
    """An unknown model, a non-boolean presolve or an unknown option is refused."""
    with pytest.raises(BackendOptionError):
        CpSatBackend(**option)


def test_backend_and_result_pickle() -> None:
    """The backend (options only) and its result survive pickling, for worker processes."""
    backend = pickle.loads(pickle.dumps(CpSatBackend(model="boolean")))
    result = run(backend, Puzzle.parse(HARD))
    assert result == pickle.loads(pickle.dumps(result))
