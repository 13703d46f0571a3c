"""Tests for the miniexact backend (backends/miniexact_backend.py); the contract suite covers
solving every size, UNSAT, limit 2 and the time limit."""

from __future__ import annotations

import pytest

from backends.base import Status
from backends.dlx import build_matrix
from backends.errors import BackendError, UnknownStatusError
from backends.miniexact_backend import MiniexactBackend, translate_status
from backends.puzzle import Puzzle
from tests.puzzles import TOP95_FIRST, run

if MiniexactBackend.unavailable_reason() is not None:
    pytest.skip(
        f"miniexact backend unavailable: {MiniexactBackend.unavailable_reason()}",
        allow_module_level=True,
    )

SOLVED_GRID = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"


def test_native_is_the_dlx_matrix_size() -> None:
    """native columns and rows are those of the dlx matrix it searches; no search counters."""
    puzzle = Puzzle.parse(TOP95_FIRST)
    matrix = build_matrix(puzzle)
    result = run(MiniexactBackend(), puzzle)
    assert ({"columns": matrix.ncols, "rows": matrix.nrows}, (None, None, None)) == (
        dict(result.native),
        (result.nodes, result.guesses, result.backtracks),
    )


def test_complete_grid_is_its_own_solution() -> None:
    """A puzzle with every cell given (no item left) is SOLVED with one solution."""
    result = run(MiniexactBackend(), Puzzle.parse(SOLVED_GRID), limit=2)
    assert (Status.SOLVED, 1, Puzzle.parse(SOLVED_GRID).cells) == (
        result.status,
        result.solutions_found,
        result.solution,
    )


def test_clashing_givens_are_unsat() -> None:
    """Givens that repeat a digit in a unit are UNSAT without a search."""
    result = run(MiniexactBackend(), Puzzle.parse("55" + "." * 79))
    assert (Status.UNSAT, 0) == (result.status, result.solutions_found)


def test_same_encoding_solved_twice_gives_the_same_answer() -> None:
    """MiniExact resumes its enumeration, so a second solve reloads the problem first."""
    backend = MiniexactBackend()
    encoded = backend.encode(Puzzle.parse("." * 16))
    first = backend.solve(encoded, limit=2)
    second = backend.solve(encoded, limit=2)
    assert (first.solution, 2) == (second.solution, second.solutions_found)


def test_translate() -> None:
    """10 is SOLVED, 20 UNSAT; 0 (MiniExact's error) raises BackendError, others refused."""
    assert (Status.SOLVED, Status.UNSAT) == (translate_status(10), translate_status(20))
    with pytest.raises(BackendError, match="error"):
        translate_status(0)
    with pytest.raises(UnknownStatusError):
        translate_status(30)
