"""One contract suite, run against every registered backend (present and future).

A backend whose package is not installed is skipped with its reason, never failed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from backends import REGISTRY, backend_class, make_backend
from backends.base import ROW_COLUMNS, Backend, SolveResult, Status, install_reason
from backends.errors import BackendError
from backends.puzzle import Puzzle
from harness.check.checker import check_solution
from harness.puzzles.readers import PuzzleRecord, read_puzzles
from harness.results import BASE_COLUMNS
from harness.run import runner
from tests.puzzles import shipped
from tests.results_file import read_rows

NAMES = sorted(REGISTRY)
#: The backend every other one is compared with: pure Python, so always there, and every size.
REFERENCE = "dlx"
#: Norvig's "impossible" puzzle: no solution, and hard to prove: a search can run for minutes.
IMPOSSIBLE = ".....5.8....6.1.43..........1.5........1.6...3.......553.....61........4........."


def spec_of(name: str) -> str:
    """The spec that runs ``name``: the name, or for ``lib`` the example library (built
    here; a skip without a C compiler)."""
    if name != "lib":
        return name
    from tests.test_lib import example_library

    library = example_library()
    if library is None:
        pytest.skip("lib: no C compiler (cc or gcc) to build examples/lib/solver.c")
    return f"lib:{library}"


def backend_or_skip(name: str) -> Backend:
    reason = backend_class(name).unavailable_reason()
    if reason is not None:
        pytest.skip(f"{name} unavailable: {reason}")
    return make_backend(spec_of(name))


def solve(backend: Backend, puzzle: Puzzle, limit: int = 1) -> SolveResult:
    return backend.solve(backend.encode(puzzle), limit=limit, time_limit=60)


def fits(backend: Backend, puzzle: Puzzle) -> bool:
    return puzzle.box <= type(backend).max_box


class Reference:
    """The :data:`REFERENCE` backend's answers, each puzzle solved once, for agreement."""

    def __init__(self) -> None:
        self.backend = make_backend(REFERENCE)
        self.answers: dict[Puzzle, str] = {}

    def answer(self, puzzle: Puzzle) -> str:
        """The reference backend's solution of ``puzzle``, as one line of text."""
        if puzzle not in self.answers:
            self.answers[puzzle] = answer_text(puzzle, solve(self.backend, puzzle))
        return self.answers[puzzle]


@pytest.fixture(scope="module")
def reference() -> Reference:
    """The fixed reference backend's answers, shared by the module's tests."""
    return Reference()


def answer_text(puzzle: Puzzle, result: SolveResult) -> str:
    """A result's solution of ``puzzle`` as one line of text (checked first)."""
    assert Status.SOLVED == result.status
    assert check_solution(puzzle.cells, result.solution) is None
    return Puzzle(puzzle.box, tuple(result.solution or ())).to_string()


@pytest.mark.parametrize("name", NAMES)
def test_solves_norvig_hardest(name: str, shared_datasets: Path, reference: Reference) -> None:
    """Every answer on Norvig's hardest passes the checker and equals the reference's."""
    backend = backend_or_skip(name)
    for record in read_puzzles(str(shared_datasets / "norvig-hardest.txt")).records:
        answer = answer_text(record.puzzle, solve(backend, record.puzzle))
        assert reference.answer(record.puzzle) == answer


@pytest.mark.parametrize("name", NAMES)
def test_solves_every_size(name: str, reference: Reference) -> None:
    """The shipped 4x4, 9x9, 16x16 and 25x25 puzzles are solved, checked, and agreed on."""
    backend = backend_or_skip(name)
    puzzles = [p for p in shipped("sizes.txt") if fits(backend, p)]
    assert {4, 9} <= {p.n for p in puzzles}
    for puzzle in puzzles:
        answer = answer_text(puzzle, solve(backend, puzzle))
        assert reference.answer(puzzle) == answer


def limit_two(backend: Backend, name: str) -> list[tuple[Puzzle, SolveResult]]:
    """Each puzzle of the shipped file ``name`` that fits ``backend``, solved under limit 2."""
    puzzles = [p for p in shipped(name) if fits(backend, p)]
    return [(puzzle, solve(backend, puzzle, limit=2)) for puzzle in puzzles]


@pytest.mark.parametrize("name", NAMES)
def test_unsat(name: str) -> None:
    """Every shipped unsolvable puzzle is UNSAT with no solution."""
    for _, result in limit_two(backend_or_skip(name), "unsolvable.txt"):
        assert (Status.UNSAT, 0, None) == (result.status, result.solutions_found, result.solution)


@pytest.mark.parametrize("name", NAMES)
def test_counts_two_solutions(name: str) -> None:
    """Under limit 2 a multi-solution puzzle gives 2 solutions, the first one checked."""
    for puzzle, result in limit_two(backend_or_skip(name), "multi.txt"):
        assert (Status.SOLVED, 2) == (result.status, result.solutions_found)
        assert check_solution(puzzle.cells, result.solution) is None


@pytest.mark.parametrize("name", NAMES)
def test_limit_one_stops_at_one(name: str) -> None:
    """Under limit 1 a multi-solution puzzle reports exactly 1 solution."""
    backend = backend_or_skip(name)
    puzzle = shipped("multi.txt")[0]
    assert 1 == solve(backend, puzzle, limit=1).solutions_found


@pytest.mark.parametrize("name", NAMES)
def test_keeps_time_limit(name: str, tmp_path: Path) -> None:
    """Through the harness, a 1 s limit on a hard unsolvable puzzle ends the solve."""
    backend_or_skip(name)
    record = PuzzleRecord("impossible", 1, Puzzle.parse(IMPOSSIBLE), None, None, "")
    config = runner.RunConfig(
        backends=runner.resolve_backends([spec_of(name)]), out=tmp_path / "t.csv", timeout=1.0
    )
    runner.run([record], config)
    row = read_rows(config.out)[1][0]
    assert row["status"] in {"TIMEOUT", "UNSAT"}


@pytest.mark.parametrize("name", NAMES)
def test_declares_itself(name: str) -> None:
    """Every backend has a name matching its key, a summary, and declared native counters,
    none named like a row column."""
    cls = backend_class(name)
    assert name == cls.name
    assert bool(cls.summary)
    assert isinstance(cls.native_counters, tuple)
    assert set() == set(cls.native_counters) & ROW_COLUMNS


@pytest.mark.parametrize("name", [n for n in NAMES if isinstance(REGISTRY[n], str)])
def test_module_is_named_by_the_rule(name: str) -> None:
    """backends/NAME.py, or NAME_backend.py where NAME is also the wrapped library's module
    (or the standard library's): the rule in backends/__init__.py."""
    bare = name.replace("-", "_")
    wrapped = backend_class(name).imports.partition(".")[0]
    shadows = bare == wrapped or bare in sys.stdlib_module_names
    expected = f"backends.{bare}_backend" if shadows else f"backends.{bare}"
    assert expected == str(REGISTRY[name]).partition(":")[0]


def test_row_columns_are_the_results_schema() -> None:
    """The names native statistics may not take are exactly the results CSV's own columns."""
    assert set(BASE_COLUMNS) == ROW_COLUMNS


def test_install_reason_names_the_missing_package() -> None:
    """A module that does not import gives 'install PACKAGE'; one that does gives None."""
    assert "install no-such-pkg" == install_reason("no_such_module_here", "no-such-pkg")
    assert install_reason("json", "json") is None


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"status": "SOLVED"}, "status must be a Status"),
        ({"status": Status.SOLVED, "solutions_found": 1}, "SOLVED needs a solution"),
        ({"status": Status.SOLVED, "solution": (1,)}, "SOLVED needs a solution"),
        ({"status": Status.UNSAT, "solution": (1,), "solutions_found": 1}, "UNSAT cannot carry"),
        ({"status": Status.UNKNOWN, "guesses": -1}, "counter guesses must be"),
        ({"status": Status.UNKNOWN, "backtracks": 1.0}, "counter backtracks must be"),
        ({"status": Status.UNKNOWN, "own_solve_s": -1e-6}, "own_solve_s must be"),
        ({"status": Status.UNKNOWN, "own_solve_s": float("inf")}, "own_solve_s must be"),
    ],
)
def test_solve_result_refuses_what_breaks_the_contract(fields: dict, reason: str) -> None:
    """A SolveResult whose fields contradict each other or the counters' meaning is refused."""
    with pytest.raises(BackendError) as refused:
        SolveResult(**fields)
    assert reason == str(refused.value)[: len(reason)]


def test_solve_result_takes_what_keeps_the_contract() -> None:
    """SOLVED with a solution, UNSAT without, counters and an own clock of zero or more."""
    results = [
        SolveResult(Status.SOLVED, (1,), 1, 1, 0, 0, own_solve_s=0.0),
        SolveResult(Status.UNSAT, nodes=5),
        SolveResult(Status.TIMEOUT, solutions_found=0, own_solve_s=2),
    ]
    assert [Status.SOLVED, Status.UNSAT, Status.TIMEOUT] == [result.status for result in results]
