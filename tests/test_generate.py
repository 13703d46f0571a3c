"""Tests for the puzzle generator (harness/generate.py) and the datasets it made."""

from __future__ import annotations

import random
import statistics
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from backends import make_backend
from backends.base import Status
from backends.puzzle import Puzzle
from harness import cli
from harness.checker import check_solution
from harness.generate import (
    GenerateError,
    GenerateOptions,
    add_wrong_given,
    candidate_seeds,
    count_solutions,
    generate,
    make_candidate,
    random_grid,
    remove_needed_given,
    render,
    solution_of,
)
from harness.readers import read_puzzles

DATASETS = Path(__file__).resolve().parents[1] / "datasets"


def _private_count(puzzle: Puzzle, limit: int = 2) -> int:
    """A tiny independent solution counter (plain backtracking), to cross-check backends."""
    geo = puzzle.geometry
    cells = list(puzzle.cells)
    empties = [c for c in range(geo.ncells) if not cells[c]]

    def count(i: int, wanted: int) -> int:
        if i == len(empties):
            return 1
        cell, found = empties[i], 0
        used = {cells[p] for p in geo.peers[cell]}
        for digit in range(1, geo.n + 1):
            if digit not in used and found < wanted:
                cells[cell] = digit
                found += count(i + 1, wanted - found)
                cells[cell] = 0
        return found

    if puzzle.conflicts():
        return 0
    return count(0, limit)


def _puzzles(name: str) -> list[Puzzle]:
    """The puzzles of a shipped dataset file, skipping ``#`` comments and blank lines."""
    lines = (DATASETS / name).read_text(encoding="utf-8").splitlines()
    return [Puzzle.parse(line) for line in lines if line.strip() and not line.startswith("#")]


def _header(name: str) -> list[str]:
    lines = (DATASETS / name).read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.startswith("#")]


@pytest.fixture(scope="module")
def mrv() -> Iterator:
    """The mrv backend, the generator's default."""
    yield make_backend("mrv")


@pytest.fixture(scope="module")
def singles() -> Iterator:
    """mrv with naked and hidden singles: guesses == 0 means singles alone solve a puzzle."""
    yield make_backend("mrv:inference=singles")


@pytest.fixture(scope="module")
def small() -> str:
    """A small generated file: 6 puzzles, 9x9, seed 7."""
    return render(generate(GenerateOptions(size=9, count=6, seed=7)))


# --------------------------------------------------------------------------- grids


@pytest.mark.parametrize("box", [2, 3, 4, 5])
def test_random_grid_is_a_valid_complete_grid(box: int) -> None:
    """random_grid fills every cell and the independent checker accepts it."""
    grid = random_grid(box, random.Random(11))
    assert None is check_solution([0] * len(grid.cells), grid.cells)


def test_random_grid_same_seed_same_grid() -> None:
    """The same seed gives the same grid; another seed a different one."""
    first = random_grid(3, random.Random(5))
    assert first == random_grid(3, random.Random(5))
    assert first != random_grid(3, random.Random(6))


def test_candidate_seeds_are_a_fixed_sequence() -> None:
    """Candidate seeds come from random.Random(seed) in order, so they never change."""
    seeds = candidate_seeds(3)
    master = random.Random(3)
    assert [master.getrandbits(64) for _ in range(3)] == [next(seeds) for _ in range(3)]


# --------------------------------------------------------------------------- generate


def test_same_seed_same_output(small: str) -> None:
    """Generating twice with the same options gives the same bytes."""
    assert small == render(generate(GenerateOptions(size=9, count=6, seed=7)))


def test_different_seed_different_puzzles(small: str) -> None:
    """Another seed gives other puzzles."""
    other = render(generate(GenerateOptions(size=9, count=6, seed=8)))
    body = [line for line in small.splitlines() if not line.startswith("#")]
    assert not set(body) & set(line for line in other.splitlines())


@pytest.mark.parametrize(
    "options",
    [
        GenerateOptions(size=9, count=2, seed=3, pool=5),
        GenerateOptions(size=9, count=2, seed=3, require_guess=True),
    ],
)
def test_jobs_do_not_change_the_output(options: GenerateOptions) -> None:
    """Two worker processes give the same file as one, with or without a pool."""
    assert render(generate(options)) == render(generate(options, jobs=2))


def test_output_is_header_then_canonical_puzzles(small: str) -> None:
    """Comment lines come first and name the command; then 6 canonical 81-char lines."""
    lines = small.splitlines()
    header = [line for line in lines if line.startswith("#")]
    body = lines[len(header) :]
    assert lines[: len(header)] == header
    assert "# reproduce: harness generate --size 9 --count 6 --seed 7 --backend mrv" in header
    assert 6 == len(body)
    assert body == [Puzzle.parse(line).to_string() for line in body]


@pytest.mark.parametrize(("size", "seed"), [(4, 1), (9, 2), (9, 3)])
def test_generated_puzzles_have_one_solution(mrv, size: int, seed: int) -> None:
    """mrv with limit 2 and a private backtracking counter both find exactly one solution."""
    puzzles = [c.puzzle for c in generate(GenerateOptions(size=size, count=3, seed=seed)).kept]
    assert [1, 1, 1] == [count_solutions(mrv, p) for p in puzzles]
    assert [1, 1, 1] == [_private_count(p) for p in puzzles]


def test_generated_puzzle_keeps_its_grid(mrv) -> None:
    """The carved puzzle's givens agree with the random grid it came from."""
    rng = random.Random(42)
    grid = random_grid(3, rng)
    puzzle = make_candidate(42).puzzle
    assert all(d in (0, g) for d, g in zip(puzzle.cells, grid.cells, strict=True))
    assert grid == solution_of(mrv, puzzle)


def test_min_givens_stops_carving() -> None:
    """With min_givens the carving stops at exactly that many givens (when reachable)."""
    assert 60 == make_candidate(4, min_givens=60).puzzle.givens


def test_require_guess_puzzles_are_not_solved_by_singles(singles) -> None:
    """Every --require-guess puzzle makes mrv:inference=singles guess at least once."""
    kept = generate(GenerateOptions(size=9, count=2, seed=1, require_guess=True)).kept
    guesses = [singles.solve(singles.encode(c.puzzle)).guesses for c in kept]
    assert all(g is not None and g > 0 for g in guesses), guesses


def test_pool_keeps_the_hardest_by_nodes() -> None:
    """With a pool, the kept puzzles are the pool's top nodes, hardest first."""
    generated = generate(GenerateOptions(size=9, count=3, seed=9, pool=8))
    seeds = candidate_seeds(9)
    pool = [make_candidate(next(seeds), index=i) for i in range(8)]
    expected = sorted(pool, key=lambda c: (-c.nodes, c.index))[:3]
    assert expected == list(generated.kept)


def test_require_guess_on_4x4_gives_up() -> None:
    """No 4x4 candidate of this pool needs a guess, so --require-guess fails clearly."""
    with pytest.raises(GenerateError, match="need a guess"):
        generate(GenerateOptions(size=4, count=1, seed=1, pool=20, require_guess=True))


@pytest.mark.parametrize(
    "options",
    [
        GenerateOptions(size=8),
        GenerateOptions(count=0),
        GenerateOptions(count=5, pool=4),
        GenerateOptions(backend="no-such-backend"),
    ],
)
def test_bad_options_are_refused(options: GenerateOptions) -> None:
    """Bad size, count, pool or backend raise before any work."""
    with pytest.raises(Exception, match=r"size|count|pool|backend"):
        generate(options)


# --------------------------------------------------------------------------- variants


def test_add_wrong_given_makes_unsat_without_duplicates(mrv) -> None:
    """A wrong but non-clashing given turns a unique puzzle into one with no solution."""
    puzzle = make_candidate(5).puzzle
    broken = add_wrong_given(puzzle, solution_of(mrv, puzzle), random.Random(0))
    assert puzzle.givens + 1 == broken.givens
    assert [] == broken.conflicts()
    assert Status.UNSAT == mrv.solve(mrv.encode(broken), limit=2).status


def test_remove_needed_given_makes_two_solutions(mrv) -> None:
    """Dropping a needed given of a minimal puzzle leaves at least two solutions."""
    puzzle = make_candidate(6).puzzle
    looser = remove_needed_given(puzzle, random.Random(0), mrv)
    assert puzzle.givens - 1 == looser.givens
    assert 2 == count_solutions(mrv, looser)
    assert 2 == _private_count(looser)


# --------------------------------------------------------------------------- shipped datasets


@pytest.fixture(scope="module")
def hard95() -> list[Puzzle]:
    """The puzzles of datasets/hard95.txt."""
    return _puzzles("hard95.txt")


def test_hard95_has_95_9x9_puzzles(hard95: list[Puzzle]) -> None:
    """hard95.txt holds 95 distinct 9x9 puzzles."""
    assert 95 == len({p.cells for p in hard95})
    assert {9} == {p.n for p in hard95}


@pytest.mark.slow
def test_hard95_puzzles_are_unique(mrv, hard95: list[Puzzle]) -> None:
    """Every hard95 puzzle has exactly one solution (mrv, limit 2)."""
    assert [1] * 95 == [count_solutions(mrv, p) for p in hard95]


@pytest.mark.slow
def test_hard95_needs_more_than_singles(singles, hard95: list[Puzzle]) -> None:
    """No hard95 puzzle is solved by naked and hidden singles alone."""
    guesses = [singles.solve(singles.encode(p)).guesses for p in hard95]
    assert [] == [g for g in guesses if not g]


@pytest.mark.slow
def test_hard95_header_nodes_match_mrv(mrv, hard95: list[Puzzle]) -> None:
    """The header's mrv nodes line agrees with what mrv counts on the file today."""
    nodes = [mrv.solve(mrv.encode(p)).nodes for p in hard95]
    expected = (
        f"# mrv nodes (limit=1): median {statistics.median(nodes)}, min {min(nodes)}, "
        f"max {max(nodes)}, total {sum(nodes)}."
    )
    assert expected in _header("hard95.txt")
    assert nodes == sorted(nodes, reverse=True)


def test_hard95_header_names_its_command() -> None:
    """hard95.txt's header gives the harness generate command that made it."""
    commands = [line for line in _header("hard95.txt") if line.startswith("# reproduce: ")]
    assert 1 == len(commands)
    assert "--count 95" in commands[0]
    assert "--require-guess" in commands[0]


def test_unsolvable_puzzles_are_unsat(mrv) -> None:
    """Every unsolvable.txt puzzle is UNSAT with no duplicate givens, in 9x9 and 4x4."""
    puzzles = _puzzles("unsolvable.txt")
    assert [Status.UNSAT] * len(puzzles) == [mrv.solve(mrv.encode(p)).status for p in puzzles]
    assert [[]] * len(puzzles) == [p.conflicts() for p in puzzles]
    assert {4, 9} == {p.n for p in puzzles}


def test_unsolvable_4x4_has_no_solution_by_private_count() -> None:
    """The private backtracking counter also finds no solution for the 4x4 UNSAT puzzles."""
    fours = [p for p in _puzzles("unsolvable.txt") if p.n == 4]
    assert [0] * len(fours) == [_private_count(p, 1) for p in fours]


def test_multi_puzzles_have_two_solutions(mrv) -> None:
    """Every multi.txt puzzle has 2 solutions under limit 2, in 9x9 and 4x4."""
    puzzles = _puzzles("multi.txt")
    assert [2] * len(puzzles) == [count_solutions(mrv, p) for p in puzzles]
    assert [2] * len(puzzles) == [_private_count(p) for p in puzzles]
    assert {4, 9} == {p.n for p in puzzles}


@pytest.mark.slow
def test_sizes_puzzles_are_unique(mrv) -> None:
    """Every sizes.txt puzzle, 4x4 to 25x25, has exactly one solution."""
    puzzles = _puzzles("sizes.txt")
    assert [1] * len(puzzles) == [count_solutions(mrv, p) for p in puzzles]
    assert {4, 9, 16, 25} == {p.n for p in puzzles}


@pytest.mark.parametrize("name", ["hard95.txt", "unsolvable.txt", "multi.txt", "sizes.txt"])
def test_datasets_say_how_they_were_made(name: str) -> None:
    """Each shipped dataset starts with comment lines, one naming how it was made."""
    header = _header(name)
    assert (DATASETS / name).read_text(encoding="utf-8").startswith("#")
    assert any("generate" in line for line in header)


@pytest.mark.parametrize("name", ["hard95.txt", "unsolvable.txt", "multi.txt", "sizes.txt"])
def test_datasets_read_cleanly_with_the_harness_reader(name: str) -> None:
    """harness.readers reads each shipped dataset whole: same puzzles, no bad lines."""
    result = read_puzzles(str(DATASETS / name))
    assert [] == list(result.bad)
    assert _puzzles(name) == [record.puzzle for record in result.records]


def test_cli_generate_writes_only_to_out(tmp_path: Path) -> None:
    """harness generate --out FILE prints nothing on stdout and writes the library's text."""
    out = tmp_path / "g.txt"
    args = ["generate", "--size", "4", "--count", "2", "--seed", "3", "--out", str(out)]
    result = CliRunner().invoke(cli.main, args)
    assert 0 == result.exit_code, result.output
    assert "" == result.stdout
    assert render(generate(GenerateOptions(size=4, count=2, seed=3))) == out.read_text()


def test_cli_generate_refuses_bad_backend() -> None:
    """An unknown ranking backend is a usage error (exit 2) naming the bad value."""
    result = CliRunner().invoke(cli.main, ["generate", "--backend", "no-such-backend"])
    assert 2 == result.exit_code
    assert "no-such-backend" in result.output
