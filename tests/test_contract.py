"""One contract suite, run against every registered backend (present and future).

A backend whose package is not installed is skipped with its reason, never failed.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from backends import REGISTRY, make_backend
from backends.base import Backend, SolveResult, Status
from backends.puzzle import Puzzle
from harness import runner
from harness.checker import check_solution
from harness.readers import PuzzleRecord, read_puzzles
from harness.results import read_rows
from tests.puzzles import shipped

NAMES = sorted(REGISTRY)
#: Norvig's "impossible" puzzle: no solution, and hard to prove: a search can run for minutes.
IMPOSSIBLE = ".....5.8....6.1.43..........1.5........1.6...3.......553.....61........4........."


def backend_or_skip(name: str) -> Backend:
    reason = REGISTRY[name].available()
    if reason is not None:
        pytest.skip(f"{name} unavailable: {reason}")
    return make_backend(name)


def solve(backend: Backend, puzzle: Puzzle, limit: int = 1) -> SolveResult:
    return backend.solve(backend.encode(puzzle), limit=limit, time_limit=60)


def fits(backend: Backend, puzzle: Puzzle) -> bool:
    return puzzle.box <= type(backend).max_box


@pytest.fixture(scope="module")
def reference(request: pytest.FixtureRequest) -> dict[str, str]:
    """Solutions of the shared puzzles by the first available backend, for agreement."""
    return {}


@pytest.mark.parametrize("name", NAMES)
def test_solves_norvig_hardest(name: str, shared_datasets: Path, reference: dict) -> None:
    """Every answer on Norvig's hardest passes the checker, and all backends agree."""
    backend = backend_or_skip(name)
    for record in read_puzzles(str(shared_datasets / "norvig-hardest.txt")).records:
        result = solve(backend, record.puzzle)
        assert (Status.SOLVED, None) == (
            result.status,
            check_solution(record.puzzle.cells, result.solution),
        )
        answer = Puzzle(record.puzzle.box, tuple(result.solution)).to_string()
        assert answer == reference.setdefault(record.puzzle.to_string(), answer)


@pytest.mark.parametrize("name", NAMES)
def test_solves_every_size(name: str, reference: dict) -> None:
    """The shipped 4x4, 9x9, 16x16 and 25x25 puzzles are solved, checked, and agreed on."""
    backend = backend_or_skip(name)
    puzzles = [p for p in shipped("sizes.txt") if fits(backend, p)]
    assert {4, 9} <= {p.n for p in puzzles}
    for puzzle in puzzles:
        result = solve(backend, puzzle)
        assert (Status.SOLVED, None) == (
            result.status,
            check_solution(puzzle.cells, result.solution),
        )
        answer = Puzzle(puzzle.box, tuple(result.solution)).to_string()
        assert answer == reference.setdefault(puzzle.to_string(), answer)


@pytest.mark.parametrize("name", NAMES)
def test_unsat(name: str) -> None:
    """Every shipped unsolvable puzzle is UNSAT with no solution."""
    backend = backend_or_skip(name)
    for puzzle in shipped("unsolvable.txt"):
        if fits(backend, puzzle):
            result = solve(backend, puzzle, limit=2)
            assert (Status.UNSAT, 0, None) == (
                result.status,
                result.solutions_found,
                result.solution,
            )


@pytest.mark.parametrize("name", NAMES)
def test_counts_two_solutions(name: str) -> None:
    """Under limit 2 a multi-solution puzzle gives 2 solutions, the first one checked."""
    backend = backend_or_skip(name)
    for puzzle in shipped("multi.txt"):
        if fits(backend, puzzle):
            result = solve(backend, puzzle, limit=2)
            assert (Status.SOLVED, 2, None) == (
                result.status,
                result.solutions_found,
                check_solution(puzzle.cells, result.solution),
            )


@pytest.mark.parametrize("name", NAMES)
def test_limit_one_stops_at_one(name: str) -> None:
    """Under limit 1 a multi-solution puzzle reports exactly 1 solution."""
    backend = backend_or_skip(name)
    puzzle = shipped("multi.txt")[0]
    assert 1 == solve(backend, puzzle, limit=1).solutions_found


@pytest.mark.parametrize("name", NAMES)
def test_keeps_time_limit(name: str, tmp_path: Path) -> None:
    """Through the harness, a 1 s limit on a hard unsolvable puzzle ends within 1 s + slack."""
    backend_or_skip(name)
    record = PuzzleRecord("impossible", 1, Puzzle.parse(IMPOSSIBLE), None, None, "")
    config = runner.RunConfig(
        backends=runner.resolve_backends([name]), out=tmp_path / "t.csv", timeout=1.0
    )
    start = time.perf_counter()
    runner.run([record], config)
    elapsed = time.perf_counter() - start
    row = read_rows(config.out)[1][0]
    assert row["status"] in {"TIMEOUT", "UNSAT"}
    assert float(row["wall_s"]) < 2.0
    assert elapsed < 1.0 + 1.0 + 3.0  # limit + grace, plus worker start and warm-up


@pytest.mark.parametrize("name", NAMES)
def test_declares_itself(name: str) -> None:
    """Every backend has a name matching its key, a summary, and declared native counters."""
    cls = REGISTRY[name]
    assert (name, True, True) == (
        cls.name,
        bool(cls.summary),
        isinstance(cls.native_counters, tuple),
    )
