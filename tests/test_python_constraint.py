"""Tests of the python-constraint backend (backends/python_constraint.py)."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from backends.base import SolveResult, Status
from backends.errors import BackendOptionError, UnknownStatusError
from backends.puzzle import Grid, Puzzle
from backends.python_constraint import SOLVERS, PythonConstraintBackend, _translate

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"

pytestmark = pytest.mark.skipif(
    PythonConstraintBackend.available() is not None,
    reason=f"python-constraint backend unavailable: {PythonConstraintBackend.available()}",
)

FOUR = "1...4.3...1.3..."  # a 4x4 with one solution
EASY = "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."
NO_SOLUTION_4X4 = ".1....4.2......1"  # no repeated given, no empty domain, yet no solution


def is_solution_of(puzzle: Puzzle, grid: Grid | None) -> bool:
    """Independent check: every unit holds 1..n once and every given is kept."""
    if grid is None or len(grid) != len(puzzle.cells):
        return False
    digits = set(range(1, puzzle.n + 1))
    units_ok = all({grid[c] for c in unit} == digits for unit in puzzle.geometry.units)
    givens_ok = all(g == d for g, d in zip(puzzle.cells, grid, strict=True) if g)
    return units_ok and givens_ok


def solve(text: str, limit: int = 1, **options: object) -> SolveResult:
    backend = PythonConstraintBackend(**options)
    return backend.solve(backend.encode(Puzzle.parse(text)), limit=limit)


def test_available_here() -> None:
    """The installed python-constraint2 makes the backend available."""
    assert PythonConstraintBackend.available() is None


def test_available_names_package_when_import_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """A failed `import constraint` asks for python-constraint2."""
    monkeypatch.setitem(sys.modules, "constraint", None)
    assert PythonConstraintBackend.available() == "install python-constraint2"


def test_available_refuses_old_package(monkeypatch: pytest.MonkeyPatch) -> None:
    """A `constraint` module without the 2.x solvers (python-constraint 1.x) is refused."""
    monkeypatch.setitem(sys.modules, "constraint", types.ModuleType("constraint"))
    reason = PythonConstraintBackend.available()
    assert reason is not None
    assert reason.startswith("install python-constraint2 (found ")


def test_solves_4x4() -> None:
    """A 4x4 puzzle is solved and the answer passes the independent check."""
    result = solve(FOUR)
    assert Status.SOLVED == result.status
    assert True is is_solution_of(Puzzle.parse(FOUR), result.solution)


@pytest.mark.skipif(not DATASETS.is_dir(), reason=f"public datasets absent: {DATASETS}")
def test_solves_norvig_hardest() -> None:
    """Every puzzle of Norvig's hardest is solved correctly by the default solver."""
    puzzles = [Puzzle.parse(line) for line in (DATASETS / "norvig-hardest.txt").read_text().split()]
    backend = PythonConstraintBackend()
    results = [backend.solve(backend.encode(p)) for p in puzzles]
    assert 11 == len(puzzles)
    assert [True] * 11 == [
        is_solution_of(p, r.solution) for p, r in zip(puzzles, results, strict=True)
    ]


@pytest.mark.parametrize("solver", sorted(SOLVERS))
@pytest.mark.parametrize("prune", [True, False])
def test_each_solver_solves_easy(solver: str, prune: bool) -> None:
    """Every solver choice, with and without pruning, solves an easy 9x9 correctly."""
    result = solve(EASY, solver=solver, prune=prune)
    assert Status.SOLVED == result.status
    assert True is is_solution_of(Puzzle.parse(EASY), result.solution)


@pytest.mark.parametrize("solver", sorted(SOLVERS))
def test_limit_two_on_unique_puzzle_finds_one(solver: str) -> None:
    """Counting to two on a unique puzzle finds exactly one solution."""
    result = solve(EASY, limit=2, solver=solver)
    assert (Status.SOLVED, 1) == (result.status, result.solutions_found)


@pytest.mark.parametrize("solver", sorted(SOLVERS))
def test_limit_two_on_empty_4x4_finds_two(solver: str) -> None:
    """An empty 4x4 (288 solutions) gives exactly two with limit 2."""
    result = solve("." * 16, limit=2, solver=solver)
    assert (Status.SOLVED, 2) == (result.status, result.solutions_found)
    assert True is is_solution_of(Puzzle.parse("." * 16), result.solution)


def test_limit_two_on_9x9_with_removed_givens() -> None:
    """A 9x9 with half its givens removed has at least two solutions."""
    text = "".join(ch if i % 2 else "." for i, ch in enumerate(EASY))
    result = solve(text, limit=2)
    assert (Status.SOLVED, 2) == (result.status, result.solutions_found)
    assert True is is_solution_of(Puzzle.parse(text), result.solution)


@pytest.mark.parametrize("solver", sorted(SOLVERS))
@pytest.mark.parametrize("prune", [True, False])
def test_unsolvable_is_unsat(solver: str, prune: bool) -> None:
    """A consistent 4x4 with no solution is UNSAT, with no solution attached."""
    assert [] == Puzzle.parse(NO_SOLUTION_4X4).conflicts()
    result = solve(NO_SOLUTION_4X4, limit=2, solver=solver, prune=prune)
    assert (Status.UNSAT, None, 0) == (result.status, result.solution, result.solutions_found)


@pytest.mark.parametrize("prune", [True, False])
def test_duplicate_givens_are_unsat(prune: bool) -> None:
    """Two equal givens in one row make the puzzle UNSAT."""
    text = "11" + EASY[2:]
    assert [] != Puzzle.parse(text).conflicts()
    assert Status.UNSAT == solve(text, prune=prune).status


def test_empty_domain_after_pruning_is_unsat_without_search() -> None:
    """A cell whose peers' givens take every digit is reported UNSAT, naming the cell."""
    text = "12345678." + "." * 8 + "9" + "." * 63  # r1c9 sees 1-8 in its row, 9 in its column
    result = solve(text)
    assert (Status.UNSAT, "no value left for r1c9 after pruning") == (
        result.status,
        result.message,
    )


def test_search_counters_are_none() -> None:
    """The library exposes no search counters, so nodes/guesses/backtracks stay None."""
    result = solve(EASY)
    assert (None, None, None) == (result.nodes, result.guesses, result.backtracks)


def test_constraint_checks_counted_and_deterministic() -> None:
    """constraint_checks is positive and the same on a second run."""
    first = solve(EASY).native["constraint_checks"]
    second = solve(EASY).native["constraint_checks"]
    assert first == second
    assert first > 0


def test_count_checks_off_leaves_native_empty() -> None:
    """With count_checks=false no native statistic is reported."""
    assert {} == dict(solve(FOUR, count_checks="false").native)


def test_unknown_solver_is_refused() -> None:
    """An unknown solver name is a BackendOptionError that lists the choices."""
    with pytest.raises(BackendOptionError, match=r"minconflicts.*backtracking"):
        PythonConstraintBackend(solver="minconflicts")


def test_spec_shows_changed_options() -> None:
    """The spec names only the options that differ from the defaults."""
    assert "python-constraint:solver=recursive,prune=false" == (
        PythonConstraintBackend(solver="recursive", prune="no").spec
    )


def test_unknown_native_outcome_raises_with_value() -> None:
    """A native outcome that is neither a solution dict nor None is refused, value named."""
    with pytest.raises(UnknownStatusError, match="'weird'"):
        _translate("weird")


def test_translate_known_outcomes() -> None:
    """A solution dict is SOLVED and None is UNSAT."""
    assert (Status.SOLVED, Status.UNSAT) == (_translate({0: 1}), _translate(None))
