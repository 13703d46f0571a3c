"""Tests for the CP-SAT backend (backends/cpsat.py).

The checks it shares with the pycosat backend are in test_library_solvers.py.
"""

from __future__ import annotations

import pytest

from backends.base import Status
from backends.cpsat import MODELS, CpSatBackend, translate_status
from backends.errors import BackendError, BackendOptionError, UnknownStatusError
from backends.puzzle import Puzzle
from tests.puzzles import TOP95_FIRST, WRONG_GIVEN, formula_grid, run, with_blanks

if CpSatBackend.unavailable_reason() is not None:
    pytest.skip(
        f"cpsat backend unavailable: {CpSatBackend.unavailable_reason()}", allow_module_level=True
    )


def test_available() -> None:
    """With ortools installed the backend is available."""
    assert CpSatBackend.unavailable_reason() is None


@pytest.mark.parametrize("presolve", [True, False])
@pytest.mark.parametrize("model", MODELS)
def test_unsat_found_by_search(model: str, presolve: bool) -> None:
    """A wrong but unconflicting given makes a hard puzzle UNSAT."""
    result = run(CpSatBackend(model=model, presolve=presolve), Puzzle.parse(WRONG_GIVEN))
    assert Status.UNSAT == result.status


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
    first = run(backend, Puzzle.parse(TOP95_FIRST), limit=2)
    second = run(backend, Puzzle.parse(TOP95_FIRST), limit=2)
    keys = ("num_branches", "num_conflicts", "solver_calls")
    assert [first.native[k] for k in keys] == [second.native[k] for k in keys]
    assert first.native["num_branches"] > 0


def test_native_counters_and_no_search_counters() -> None:
    """native has CP-SAT's statistics; nodes/guesses/backtracks stay None."""
    result = run(CpSatBackend(), Puzzle.parse(TOP95_FIRST))
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
