"""Checks shared by the backends built on solver libraries, each over its options.

cpsat (OR-Tools' CP-SAT) and pycosat (PicoSAT) must both solve every size, prove Norvig's
hardest unique, refute the unsolvable builders and count solutions up to a limit. What only
one of them has (CP-SAT's statuses and counters, PicoSAT's answers, each one's options) is
tested in test_cpsat.py and test_pycosat.py.
"""

from __future__ import annotations

import itertools
import pickle
from collections.abc import Sequence

import pytest

from backends import backend_class, make_backend, parse_spec
from backends.base import Backend, Status
from backends.cpsat import MODELS
from backends.engines.cnf import ENCODINGS
from backends.puzzle import Puzzle
from tests.puzzles import (
    TOP95_FIRST,
    duplicate_given,
    formula_grid,
    many_solutions,
    no_digit_left,
    public_set,
    run,
    solves,
    with_blanks,
)


def specs(name: str, **options: Sequence[str]) -> list[str]:
    """The spec of each combination of the options' values: cpsat:model=alldiff, ..."""
    return [
        f"{name}:" + ",".join(f"{key}={value}" for key, value in zip(options, values, strict=True))
        for values in itertools.product(*options.values())
    ]


CPSAT_MODELS = specs("cpsat", model=MODELS)
CPSAT_ALL = specs("cpsat", model=MODELS, presolve=["true", "false"])
PYCOSAT_REDUCE = specs("pycosat", reduce=["false", "true"])
PYCOSAT_ALL = specs("pycosat", encoding=ENCODINGS, reduce=["false", "true"])
#: (spec, box, share of the cells emptied): every size under each cpsat model and under
#: pycosat's defaults; up to 16x16 under each pycosat encoding unreduced.
SIZE_CASES = [
    *[(spec, box, 0.4) for spec in CPSAT_MODELS for box in (2, 3, 4, 5)],
    *[("pycosat", box, 0.5) for box in (2, 3, 4, 5)],
    *[
        (spec, box, 0.5)
        for spec in specs("pycosat", encoding=ENCODINGS, reduce=["false"])
        for box in (2, 3, 4)
    ],
]


def backend_of(spec: str) -> Backend:
    """The backend a spec names, or a skip when its solver library is not installed."""
    reason = backend_class(parse_spec(spec)[0]).unavailable_reason()
    if reason is not None:
        pytest.skip(f"{spec} unavailable: {reason}")
    return make_backend(spec)


@pytest.mark.parametrize(("spec", "box", "share"), SIZE_CASES)
def test_solves_every_size(spec: str, box: int, share: float) -> None:
    """A formula grid with a share of its cells emptied is solved, 4x4 up to 25x25."""
    puzzle = with_blanks(formula_grid(box, seed=box), share, seed=box)
    result = run(backend_of(spec), puzzle)
    assert Status.SOLVED == result.status
    assert solves(puzzle, result.solution)


@pytest.mark.parametrize("spec", CPSAT_ALL + PYCOSAT_ALL)
def test_norvig_hardest_unique(spec: str) -> None:
    """Each of Norvig's hardest is solved and proven unique, under every option combination."""
    backend = backend_of(spec)
    for puzzle in public_set("norvig-hardest.txt"):
        result = run(backend, puzzle, limit=2)
        assert (Status.SOLVED, 1) == (result.status, result.solutions_found)
        assert solves(puzzle, result.solution)


@pytest.mark.parametrize("spec", CPSAT_MODELS + PYCOSAT_REDUCE)
@pytest.mark.parametrize("box", [2, 3, 4, 5])
def test_duplicate_givens_unsat(box: int, spec: str) -> None:
    """Two equal givens in a row give UNSAT and no solution."""
    result = run(backend_of(spec), duplicate_given(box))
    assert (Status.UNSAT, None, 0) == (result.status, result.solution, result.solutions_found)


@pytest.mark.parametrize("spec", CPSAT_MODELS + PYCOSAT_REDUCE)
@pytest.mark.parametrize("box", [2, 3, 4, 5])
def test_cell_without_digit_unsat(box: int, spec: str) -> None:
    """A cell whose peers hold every digit gives UNSAT, without equal givens."""
    puzzle = no_digit_left(box)
    assert [] == puzzle.conflicts()
    assert Status.UNSAT == run(backend_of(spec), puzzle).status


@pytest.mark.parametrize("spec", CPSAT_MODELS + PYCOSAT_ALL)
@pytest.mark.parametrize("box", [2, 3, 4])
def test_limit_two_on_many_solutions(box: int, spec: str) -> None:
    """An empty 4x4/9x9, or a 16x16 with 60% blanks, has 2 solutions under limit 2, 1 under 1."""
    puzzle = many_solutions(box)
    backend = backend_of(spec)
    two = run(backend, puzzle, limit=2)
    one = run(backend, puzzle, limit=1)
    assert (Status.SOLVED, 2) == (two.status, two.solutions_found)
    assert (Status.SOLVED, 1) == (one.status, one.solutions_found)
    assert solves(puzzle, two.solution)


@pytest.mark.parametrize("spec", CPSAT_MODELS + PYCOSAT_REDUCE)
def test_complete_grid_is_unique(spec: str) -> None:
    """A fully given valid grid is its own unique solution (pycosat's reduce leaves no variable)."""
    puzzle = Puzzle.from_digits(tuple(formula_grid(3)))
    result = run(backend_of(spec), puzzle, limit=2)
    assert (Status.SOLVED, 1, puzzle.cells) == (
        result.status,
        result.solutions_found,
        result.solution,
    )


@pytest.mark.parametrize("spec", ["cpsat:model=boolean", "pycosat:encoding=minimal"])
def test_backend_and_result_pickle(spec: str) -> None:
    """The backend (options only) and its result survive pickling, for worker processes."""
    backend = pickle.loads(pickle.dumps(backend_of(spec)))
    result = run(backend, Puzzle.parse(TOP95_FIRST))
    assert result == pickle.loads(pickle.dumps(result))
