"""Tests for the puzzle generator (harness/puzzles/generate/) and the datasets the project ships."""

from __future__ import annotations

import random
import shlex
import statistics
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from backends import backend_class, make_backend
from backends.base import Status
from backends.puzzle import Puzzle
from harness import cli
from harness.check.checker import check_solution
from harness.cli.generate import small_datasets_command
from harness.puzzles.generate import (
    SYMMETRIES,
    GenerateError,
    GenerateOptions,
    add_wrong_given,
    candidate_seeds,
    carve,
    clue_groups,
    count_solutions,
    effort,
    generate,
    is_minimal,
    is_symmetric,
    make_candidate,
    mutate,
    random_grid,
    remove_needed_given,
    render,
    solution_of,
)
from harness.puzzles.rating import rate
from harness.puzzles.readers import read_puzzles
from tests.puzzles import PROJECT_DATASETS

#: Shipped files whose every puzzle has exactly one solution.
UNIQUE_SETS = [
    "hard95.txt",
    "easy.txt",
    "medium.txt",
    "needs-guess.txt",
    "sizes.txt",
    "16x16.txt",
    "25x25.txt",
]
#: Shipped files made by carving to a minimal puzzle (no --min-givens, no symmetry).
MINIMAL_SETS = ["hard95.txt", "easy.txt", "medium.txt", "needs-guess.txt"]
#: Shipped files and the one tier harness.puzzles.rating gives each of their puzzles.
TIER_SETS = {"easy.txt": "easy", "medium.txt": "medium", "needs-guess.txt": "needs-guess"}
ALL_SETS = [*UNIQUE_SETS, "unsolvable.txt", "multi.txt"]


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
    lines = (PROJECT_DATASETS / name).read_text(encoding="utf-8").splitlines()
    texts = [line.partition(":")[0] for line in lines if line.strip() and line[0] != "#"]
    return [Puzzle.parse(text) for text in texts]


def _header(name: str) -> list[str]:
    lines = (PROJECT_DATASETS / name).read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.startswith("#")]


@pytest.fixture(scope="module")
def mrv() -> Iterator:
    """The mrv backend, the generator's default."""
    yield make_backend("mrv")


@pytest.fixture(scope="module")
def dlx() -> Iterator:
    """The dlx backend: a second, independent uniqueness check (exact cover)."""
    yield make_backend("dlx")


@pytest.fixture(scope="module")
def pycosat() -> Iterator:
    """The pycosat backend (SAT), or a skip when pycosat is not installed."""
    reason = backend_class("pycosat").unavailable_reason()
    if reason is not None:
        pytest.skip(f"pycosat unavailable: {reason}")
    yield make_backend("pycosat")


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
    assert 60 == make_candidate(4, GenerateOptions(min_givens=60)).puzzle.givens


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


# --------------------------------------------------------------------------- minimal puzzles


@pytest.mark.parametrize(("size", "seed"), [(4, 2), (9, 5), (9, 6)])
def test_default_puzzles_are_minimal(dlx, size: int, seed: int) -> None:
    """Removing any one given of a default puzzle leaves two or more solutions (dlx counts)."""
    puzzles = [c.puzzle for c in generate(GenerateOptions(size=size, count=2, seed=seed)).kept]
    assert [True, True] == [is_minimal(p, dlx) for p in puzzles]


def test_minimality_is_checked_clue_by_clue(mrv) -> None:
    """Each given of a minimal puzzle, removed alone, gives two solutions by the private count."""
    puzzle = make_candidate(8, GenerateOptions(size=4)).puzzle
    givens = [cell for cell, digit in enumerate(puzzle.cells) if digit]
    assert [2] * len(givens) == [_private_count(puzzle.with_cell(c, 0)) for c in givens]


def test_min_givens_puzzle_is_not_minimal(dlx) -> None:
    """A puzzle that stopped carving at 60 givens still has givens it could lose."""
    assert False is is_minimal(make_candidate(4, GenerateOptions(min_givens=60)).puzzle, dlx)


# --------------------------------------------------------------------------- symmetry


@pytest.mark.parametrize(
    ("box", "symmetry", "groups"),
    [
        (3, "none", 81),
        (3, "rotational", 41),
        (3, "quarter", 21),
        (3, "mirror", 45),
        (3, "diagonal", 45),
        (3, "antidiagonal", 45),
        (3, "dihedral", 15),
        (2, "rotational", 8),
        (2, "quarter", 4),
        (2, "dihedral", 3),
    ],
)
def test_clue_groups_partition_the_grid(box: int, symmetry: str, groups: int) -> None:
    """A symmetry's clue groups cover every cell once, in the expected number of groups."""
    found = clue_groups(box, symmetry)
    ncells = (box * box) ** 2
    assert (groups, list(range(ncells))) == (len(found), sorted(c for g in found for c in g))


@pytest.mark.parametrize("symmetry", sorted(SYMMETRIES))
def test_every_symmetry_maps_its_groups_onto_themselves(symmetry: str) -> None:
    """Each 16x16 clue group is closed under its symmetry: every image is in the group."""
    images = SYMMETRIES[symmetry]
    closed = [
        all({r * 16 + c for r, c in images(*divmod(cell, 16), 16)} <= set(g) for cell in g)
        for g in clue_groups(4, symmetry)
    ]
    assert [True] * len(closed) == closed


def test_rotational_groups_pair_opposite_cells() -> None:
    """Under a half turn, r1c1 goes with r9c9, r2c3 with r8c7, and the centre stays alone."""
    groups = set(clue_groups(3, "rotational"))
    assert {(0, 80), (11, 69), (40,)} <= groups


@pytest.mark.parametrize("symmetry", ["rotational", "mirror", "diagonal", "dihedral"])
def test_symmetric_puzzles_keep_their_symmetry(dlx, symmetry: str) -> None:
    """Symmetric puzzles are unique, symmetric, and no clue group can be removed."""
    kept = generate(GenerateOptions(count=2, seed=4, symmetry=symmetry)).kept
    puzzles = [c.puzzle for c in kept]
    assert [1, 1] == [count_solutions(dlx, p) for p in puzzles]
    assert [True, True] == [is_symmetric(p, symmetry) for p in puzzles]
    assert [True, True] == [is_minimal(p, dlx, symmetry) for p in puzzles]


def test_no_symmetry_carves_as_before() -> None:
    """symmetry='none' carves exactly the puzzle the cell-by-cell carving always made."""
    check = make_backend("mrv:inference=singles")
    rng = random.Random(3)
    grid = random_grid(3, rng)
    order = list(range(81))
    twin = random.Random()
    twin.setstate(rng.getstate())
    twin.shuffle(order)
    cells = list(grid.cells)
    for cell in order:
        digit, cells[cell] = cells[cell], 0
        if count_solutions(check, Puzzle(3, tuple(cells))) != 1:
            cells[cell] = digit
    assert Puzzle(3, tuple(cells)) == carve(grid, rng, check)


# --------------------------------------------------------------------------- difficulty


def test_difficulty_keeps_only_that_tier() -> None:
    """Every --difficulty medium puzzle is rated medium by harness.puzzles.rating."""
    kept = generate(GenerateOptions(count=3, seed=2, difficulty="medium")).kept
    assert ["medium"] * 3 == [rate(c.puzzle).tier for c in kept]
    assert ["medium"] * 3 == [c.tier for c in kept]


def test_difficulty_header_names_the_tier() -> None:
    """The header of a --difficulty file says which tier and gives the command."""
    text = render(generate(GenerateOptions(count=1, seed=2, difficulty="easy")))
    assert "# Difficulty: tier easy by harness rate" in text
    assert "--difficulty easy" in text


# --------------------------------------------------------------------------- adversarial


#: The options of an adversarial candidate climbed for 15 moves against mrv.
CLIMB_15 = GenerateOptions(adversarial="mrv", iterations=15)


@pytest.fixture(scope="module")
def climbed() -> list:
    """Three 9x9 candidates hill-climbed for 15 moves against mrv."""
    seeds = candidate_seeds(21)
    return [make_candidate(next(seeds), CLIMB_15) for _ in range(3)]


def test_climb_never_lowers_nodes(mrv, climbed: list) -> None:
    """A climbed puzzle has at least its start's nodes, and the nodes mrv counts on it."""
    assert all(c.nodes >= c.start_nodes for c in climbed)
    assert [c.nodes for c in climbed] == [effort(mrv, c.puzzle) for c in climbed]


def test_climb_raises_nodes(climbed: list) -> None:
    """Over three candidates the climb finds harder puzzles than it started from."""
    assert sum(c.nodes for c in climbed) > sum(c.start_nodes for c in climbed)


def test_climbed_puzzles_are_unique_and_minimal(dlx, climbed: list) -> None:
    """Every climbed puzzle has one solution and no removable given, by dlx."""
    assert [True] * 3 == [is_minimal(c.puzzle, dlx) for c in climbed]


def test_climb_is_reproducible(climbed: list) -> None:
    """The same seed climbs to the same puzzle."""
    first = next(candidate_seeds(21))
    assert climbed[0] == make_candidate(first, CLIMB_15)


def test_zero_iterations_is_the_carved_puzzle() -> None:
    """With no moves the adversarial candidate is the plain carved puzzle."""
    plain = make_candidate(9)
    flat = make_candidate(9, GenerateOptions(adversarial="mrv", iterations=0))
    assert (plain.puzzle, plain.nodes) == (flat.puzzle, flat.start_nodes)


def test_mutate_keeps_uniqueness_and_symmetry(dlx) -> None:
    """Moves on a rotational puzzle give unique puzzles with the same symmetry and grid."""
    rng = random.Random(5)
    grid = random_grid(3, rng)
    check = make_backend("mrv:inference=singles")
    puzzle = carve(grid, rng, check, symmetry="rotational")
    moved = [mutate(puzzle, grid, rng, check, "rotational") for _ in range(6)]
    moved = [p for p in moved if p is not None]
    assert moved
    assert [1] * len(moved) == [count_solutions(dlx, p) for p in moved]
    assert all(is_symmetric(p, "rotational") for p in moved)
    assert all(d in (0, g) for p in moved for d, g in zip(p.cells, grid.cells, strict=True))


def test_adversarial_needs_a_node_counting_backend() -> None:
    """A backend without a nodes counter cannot be climbed against."""
    if backend_class("pycosat").unavailable_reason() is not None:
        pytest.skip("pycosat unavailable")
    with pytest.raises(GenerateError, match="does not count nodes"):
        make_candidate(1, GenerateOptions(adversarial="pycosat", iterations=1))


@pytest.mark.parametrize(
    "options",
    [
        GenerateOptions(count=2, seed=11, symmetry="quarter"),
        GenerateOptions(count=2, seed=11, difficulty="easy"),
        GenerateOptions(count=2, seed=11, adversarial="mrv", iterations=5),
    ],
)
def test_new_modes_are_deterministic_per_seed(options: GenerateOptions) -> None:
    """Symmetry, difficulty and adversarial runs give the same file twice, and on 2 jobs."""
    text = render(generate(options))
    assert text == render(generate(options, jobs=2))
    assert f"# reproduce: {options.command()}" in text


@pytest.mark.parametrize(
    ("options", "word"),
    [
        (GenerateOptions(symmetry="spiral"), "symmetry"),
        (GenerateOptions(difficulty="fiendish"), "difficulty"),
        (GenerateOptions(adversarial="mrv", iterations=-1), "iterations"),
        (GenerateOptions(adversarial="dlx", backend="ac3"), "adversarial"),
    ],
)
def test_bad_new_options_are_refused(options: GenerateOptions, word: str) -> None:
    """A bad symmetry, tier, iteration count or backend pairing is named before any work."""
    with pytest.raises(GenerateError, match=word):
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


def test_sizes_cover_every_grid() -> None:
    """sizes.txt holds 4x4, 9x9, 16x16 and 25x25 puzzles; 16x16.txt and 25x25.txt their size."""
    assert {4, 9, 16, 25} == {p.n for p in _puzzles("sizes.txt")}
    assert ({16}, {25}) == (
        {p.n for p in _puzzles("16x16.txt")},
        {p.n for p in _puzzles("25x25.txt")},
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", UNIQUE_SETS)
def test_shipped_puzzles_are_unique_by_two_backends(dlx, pycosat, name: str) -> None:
    """dlx and pycosat each find exactly one solution for every puzzle, and the same one."""
    puzzles = _puzzles(name)
    by_dlx = [dlx.solve(dlx.encode(p), limit=2) for p in puzzles]
    by_sat = [pycosat.solve(pycosat.encode(p), limit=2) for p in puzzles]
    assert [1] * len(puzzles) == [r.solutions_found for r in by_dlx]
    assert [1] * len(puzzles) == [r.solutions_found for r in by_sat]
    assert [r.solution for r in by_dlx] == [r.solution for r in by_sat]


@pytest.mark.parametrize("name", MINIMAL_SETS)
def test_shipped_minimal_puzzles_are_minimal(dlx, name: str) -> None:
    """A sample of each minimal set (every 10th puzzle): no given can be removed (dlx)."""
    sample = _puzzles(name)[::10]
    assert [True] * len(sample) == [is_minimal(p, dlx) for p in sample]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "tier"), sorted(TIER_SETS.items()))
def test_shipped_tiers_match_their_header(name: str, tier: str) -> None:
    """Every puzzle of easy, medium and needs-guess is rated that tier by harness.puzzles.rating."""
    puzzles = _puzzles(name)
    assert [tier] * len(puzzles) == [rate(p).tier for p in puzzles]
    assert any(f"Difficulty: tier {tier} " in line for line in _header(name))


def test_unsolvable_is_unsat_for_dlx_and_pycosat(dlx, pycosat) -> None:
    """dlx and pycosat both prove every unsolvable.txt puzzle has no solution."""
    puzzles = _puzzles("unsolvable.txt")
    statuses = {
        (dlx.solve(dlx.encode(p), limit=2).status, pycosat.solve(pycosat.encode(p)).status)
        for p in puzzles
    }
    assert {(Status.UNSAT, Status.UNSAT)} == statuses


def test_multi_counts_match_the_header(dlx, mrv) -> None:
    """The exact solution counts in multi.txt's header are what dlx and mrv count."""
    puzzles = _puzzles("multi.txt")
    line = next(line for line in _header("multi.txt") if "Exact solution counts" in line)
    stated = [int(k) for k in line.split(":", 1)[1].strip(" .").split(", ")]
    assert stated == [count_solutions(dlx, p, 10_000) for p in puzzles]
    assert stated == [count_solutions(mrv, p, 10_000) for p in puzzles]


def test_easy_file_regenerates_from_its_header(tmp_path: Path) -> None:
    """Running the reproduce command of easy.txt writes the very same bytes."""
    command = next(line for line in _header("easy.txt") if line.startswith("# reproduce: "))
    args = shlex.split(command.removeprefix("# reproduce: "))[1:]
    out = tmp_path / "easy.txt"
    result = CliRunner().invoke(cli.main, [*args, "--jobs", "2", "--quiet", "--out", str(out)])
    assert 0 == result.exit_code, result.output
    assert (PROJECT_DATASETS / "easy.txt").read_text(encoding="utf-8") == out.read_text(
        encoding="utf-8"
    )


@pytest.mark.parametrize("name", ALL_SETS)
def test_datasets_say_how_they_were_made(name: str) -> None:
    """Each shipped dataset starts with comment lines, one giving the command that made it."""
    header = _header(name)
    assert (PROJECT_DATASETS / name).read_text(encoding="utf-8").startswith("#")
    assert 1 == sum("reproduce: " in line for line in header)
    assert any(
        "harness generate" in line or "python -m harness.puzzles.generate" in line
        for line in header
    )


@pytest.mark.parametrize("name", ALL_SETS)
def test_datasets_read_cleanly_with_the_harness_reader(name: str) -> None:
    """harness.puzzles.readers reads each shipped dataset whole: same puzzles, no bad lines."""
    result = read_puzzles(str(PROJECT_DATASETS / name))
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


def test_small_datasets_command_refuses_a_missing_directory(tmp_path: Path) -> None:
    """python -m harness.puzzles.generate names a missing directory in one line (exit 2)."""
    missing = tmp_path / "no-such-dir"
    result = CliRunner().invoke(small_datasets_command, [str(missing), "--tdoku"])
    assert 2 == result.exit_code
    assert "no-such-dir" in result.output
    assert not missing.exists()


def test_cli_generate_out_names_the_file_it_wrote(tmp_path: Path) -> None:
    """harness generate --out FILE says on stderr how many puzzles it wrote, and where."""
    out = tmp_path / "g.txt"
    args = ["generate", "-q", "--size", "4", "--count", "2", "--seed", "3", "--out", str(out)]
    result = CliRunner().invoke(cli.main, args)
    assert (0, f"wrote 2 puzzle(s) to {out}\n") == (result.exit_code, result.stderr)


@pytest.mark.parametrize(("size", "givens"), [("4", 0), ("9", 0), ("16", 110), ("25", 330)])
def test_cli_generate_default_min_givens_by_size(
    size: str, givens: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --min-givens, 16x16 and 25x25 stop carving at the shipped files' 110 and 330
    givens (seconds), smaller grids carve to a minimal puzzle; --min-givens 0 asks for a
    minimal 16x16 with a note that it can take many minutes."""
    import harness.puzzles.generate as generate_lib

    asked: list[GenerateOptions] = []

    def record(options: GenerateOptions, *args: object) -> None:
        asked.append(options)
        raise generate_lib.GenerateError("recorded")

    monkeypatch.setattr(generate_lib, "generate", record)
    result = CliRunner().invoke(cli.main, ["generate", "--size", size])
    assert (2, [givens]) == (result.exit_code, [o.min_givens for o in asked])
    explicit = CliRunner().invoke(cli.main, ["generate", "--size", "16", "--min-givens", "0"])
    note = "note: a 16x16 puzzle carved below 110 givens can take many minutes; --min-givens 110"
    assert (0, True) == (asked[-1].min_givens, explicit.stderr.startswith(note))


def test_generate_tells_each_step_of_each_candidate() -> None:
    """The stage callback hears each step of a candidate as it starts: fill, carve, rank."""
    stages: list[str] = []
    generate(GenerateOptions(size=4, count=1, seed=3), stage=stages.append)
    assert [
        "candidate 1: filling a random 4x4 grid",
        "candidate 1: carving, uniqueness by mrv:inference=singles (limit=2)",
    ] == stages[:2]
    assert stages[2].startswith("candidate 1: ") and "solving it with mrv (limit=1)" in stages[2]


def test_generate_heartbeat_says_what_it_is_doing() -> None:
    """With no line for a while, the reporter prints the time so far and the step being
    done (waits for that line; no fixed sleep)."""
    import threading

    from harness.cli.generate import Reporter

    lines: list[str] = []
    seen = threading.Event()

    def write(line: str) -> None:
        lines.append(line)
        seen.set()

    reporter = Reporter(interval=0.05, write=write)
    reporter.stage("candidate 1: carving")
    with reporter:
        assert seen.wait(60)
        reporter.say("kept 1/1 of 1 made")
    assert lines[0].endswith(" so far; candidate 1: carving")
    assert lines[-1].startswith("kept 1/1 of 1 made (0:")
