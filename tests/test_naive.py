"""Tests of the naive backend: seed 000's plain backtracking and seed 002's variants."""

from __future__ import annotations

from pathlib import Path

import pytest

from backends import backend_class, make_backend, parse_spec
from backends.base import SolveResult, Status
from backends.errors import BackendOptionError
from backends.naive import NaiveBackend
from backends.puzzle import Puzzle
from harness.check.checker import check_solution
from harness.puzzles.readers import PuzzleRecord
from harness.run import runner
from tests.puzzles import SHARED_DATASETS, shipped
from tests.results_file import read_rows

PROJECT = Path(__file__).resolve().parents[1]

# Norvig's easy50, puzzle 1.
EASY = "003020600900305001001806400008102900700000008006708200002609500800203009005010300"
# The first 4x4 puzzle of datasets/sizes.txt.
SMALL = "14..3...4..1...."
# The puzzle of seed 000's write-up.
SEED_000 = "000060080020000000001000000070000102500030000000000400004201000300700600000000050"
# The puzzle of seed 002's script.
SEED_002 = "000000200080007090602000500070060000000901000000020040005000603090400070006000000"


def solve(text: str, spec: str = "naive", limit: int = 1, **kwargs: float) -> SolveResult:
    """Encode and solve one puzzle with the options of ``spec``."""
    backend = NaiveBackend(**parse_spec(spec)[1])
    return backend.solve(backend.encode(Puzzle.parse(text)), limit=limit, **kwargs)


def effort(result: SolveResult) -> tuple[object, ...]:
    """A result's status and counters."""
    return (result.status, result.nodes, result.guesses, result.backtracks)


def shipped_small(name: str) -> list[Puzzle]:
    """The 9x9 and smaller puzzles of one of the project's datasets."""
    return [p for p in shipped(name) if p.box <= NaiveBackend.max_box]


def test_naive_is_registered() -> None:
    """The registry maps 'naive' to NaiveBackend."""
    assert NaiveBackend is backend_class("naive")


def test_options_from_a_spec() -> None:
    """A spec sets every option; the canonical spec shows the non-default ones."""
    backend = make_backend("naive:iterative=yes,presolve=singles,select=max")
    expected = {"select": "max", "iterative": True, "presolve": "singles"}
    assert (expected, "naive:select=max,iterative=true,presolve=singles") == (
        backend.config,
        backend.spec,
    )


def test_unknown_presolve_is_refused() -> None:
    """Only singles can run before the plain search."""
    with pytest.raises(BackendOptionError, match="presolve='pairs'"):
        make_backend("naive:presolve=pairs")


def test_node_counts_on_small_puzzles() -> None:
    """Regression figures: easy50's first puzzle and a 4x4 (first cell, ascending digits)."""
    assert [(Status.SOLVED, 553, 165, 503), (Status.SOLVED, 32, 15, 20)] == [
        effort(solve(EASY)),
        effort(solve(SMALL)),
    ]


def test_every_tried_value_off_the_path_is_a_backtrack() -> None:
    """Limit 1: nodes = root + one value per empty cell on the path + the backtracks."""
    result = solve(EASY)
    assert (result.nodes or 0) - 1 - EASY.count("0") == result.backtracks


@pytest.mark.parametrize("text", [EASY, SMALL])
def test_iterative_and_recursive_forms_count_the_same(text: str) -> None:
    """iterative=true walks the same tree: same answer, same counters."""
    assert solve(text) == solve(text, "naive:iterative=true")


def test_iterative_form_counts_the_same_on_the_shipped_sets() -> None:
    """Same results on every shipped 4x4/9x9 puzzle, counting to two."""
    puzzles = [p.to_string() for p in shipped_small("multi.txt") + shipped_small("unsolvable.txt")]
    recursive = [solve(text, limit=2) for text in puzzles]
    iterative = [solve(text, "naive:iterative=true", limit=2) for text in puzzles]
    assert recursive == iterative


def test_presolve_singles_solves_an_easy_puzzle_at_the_root() -> None:
    """Singles alone fill easy50's first puzzle: one node, no guess."""
    assert (Status.SOLVED, 1, 0, 0) == effort(solve(EASY, "naive:presolve=singles"))


def test_presolve_singles_shrinks_seed_002s_tree() -> None:
    """Seed 002's puzzle after singles at the root: 491,456 nodes (4,460,719 without)."""
    result = solve(SEED_002, "naive:iterative=true,presolve=singles")
    assert (Status.SOLVED, 491_456, None) == (
        result.status,
        result.nodes,
        check_solution(Puzzle.parse(SEED_002).cells, result.solution),
    )


def test_presolve_singles_tries_fewer_values_on_a_hard_puzzle() -> None:
    """Norvig's hardest, puzzle 2: singles first needs fewer nodes than plain backtracking."""
    puzzle = "..53.....8......2..7..1.5..4....53...1..7...6..32...8..6.5....9..4....3......97.."
    plain, presolved = solve(puzzle), solve(puzzle, "naive:presolve=singles")
    assert Status.SOLVED == plain.status
    assert Status.SOLVED == presolved.status
    assert (presolved.nodes or 0) < (plain.nodes or 0)


def test_select_max_is_accepted_and_solves_a_4x4() -> None:
    """select=max (seed 003's cell) still finds the answer."""
    result = solve(SMALL, "naive:select=max")
    assert (Status.SOLVED, None) == (
        result.status,
        check_solution(Puzzle.parse(SMALL).cells, result.solution),
    )


@pytest.mark.parametrize("spec", ["naive", "naive:iterative=true"])
def test_seed_000_puzzle_stops_at_the_time_limit(spec: str) -> None:
    """Both forms return TIMEOUT, with their counters, once the time limit passes."""
    result = solve(SEED_000, spec, time_limit=0.2)
    assert Status.TIMEOUT == result.status
    assert result.solution is None
    assert (result.nodes or 0) > 1000


def test_seed_000_puzzle_is_a_clean_timeout_under_the_harness(tmp_path: Path) -> None:
    """Through the runner with a 1 s limit: a TIMEOUT row with its nodes."""
    record = PuzzleRecord("seed-000", 1, Puzzle.parse(SEED_000), None, None, "")
    config = runner.RunConfig(
        backends=runner.resolve_backends(["naive"]), out=tmp_path / "t.csv", timeout=1.0
    )
    runner.run([record], config)
    row = read_rows(config.out)[1][0]
    assert "TIMEOUT" == row["status"]
    assert int(row["nodes"]) > 1000


@pytest.mark.parametrize(
    "spec", ["naive:iterative=true", "naive:presolve=singles", "naive:select=mrv"]
)
def test_variants_keep_the_contract_on_the_shipped_sets(spec: str) -> None:
    """Each variant: unique puzzles solved, two solutions found, UNSAT proved."""
    results = [
        solve(p.to_string(), spec, 2)
        for name in ("sizes.txt", "multi.txt", "unsolvable.txt")
        for p in shipped_small(name)
    ]
    got = [(r.status, r.solutions_found) for r in results]
    expected = (
        [(Status.SOLVED, 1)] * len(shipped_small("sizes.txt"))
        + [(Status.SOLVED, 2)] * len(shipped_small("multi.txt"))
        + [(Status.UNSAT, 0)] * len(shipped_small("unsolvable.txt"))
    )
    assert expected == got


def test_solves_norvig_hardest() -> None:
    """Every puzzle of Norvig's hardest is solved and checked (plain backtracking copes)."""
    path = SHARED_DATASETS / "norvig-hardest.txt"
    if not path.is_file():
        pytest.skip(f"public dataset {path} is absent (needs /work/shared/datasets)")
    puzzles = [Puzzle.parse(line) for line in path.read_text().split()]
    results = [solve(p.to_string(), "naive:presolve=singles") for p in puzzles]
    assert [None] * len(puzzles) == [
        check_solution(p.cells, r.solution) for p, r in zip(puzzles, results, strict=True)
    ]
