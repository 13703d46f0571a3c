"""Tests for backends/engines/cnf.py: clause counts, soundness, reduction, decoding (no solver)."""

from __future__ import annotations

import itertools

import pytest

from backends.engines import cnf
from backends.errors import BackendError
from backends.puzzle import Puzzle
from tests.puzzles import formula_grid, public_set, solves, with_blanks


def same_unit(box: int, a: int, b: int) -> bool:
    """Independent peer test: same row, column or box."""
    n = box * box
    (ra, ca), (rb, cb) = divmod(a, n), divmod(b, n)
    return ra == rb or ca == cb or (ra // box, ca // box) == (rb // box, cb // box)


def satisfies(formula: cnf.Cnf, true_vars: set[int]) -> bool:
    """Whether the assignment (these variables true, the rest false) satisfies every clause."""
    return all(any((lit > 0) == (abs(lit) in true_vars) for lit in cl) for cl in formula.clauses)


def true_vars_of(formula: cnf.Cnf, grid: list[int]) -> set[int]:
    """The variables a full grid makes true."""
    return {
        v
        for v in range(1, formula.nvars + 1)
        if grid[formula.var_cell[v - 1]] == formula.var_digit[v - 1]
    }


@pytest.mark.parametrize("box", [2, 3, 4, 5])
@pytest.mark.parametrize("encoding", cnf.ENCODINGS)
def test_full_counts_match_formulas(box: int, encoding: str) -> None:
    """An empty grid's unreduced CNF has n^3 variables and the clauses the formulas give."""
    n = box * box
    pairs = sum(1 for a, b in itertools.combinations(range(n * n), 2) if same_unit(box, a, b))
    expected = n * n + n * pairs
    if encoding != "minimal":
        expected += n * n * n * (n - 1) // 2
    if encoding == "extended":
        expected += 3 * n * n
    formula = cnf.encode(Puzzle.from_digits((0,) * (n * n)), encoding, reduce=False)
    assert (n**3, expected) == (formula.nvars, formula.nclauses)
    assert (n**3, expected) == cnf.full_counts(box, encoding)


def test_nine_by_nine_counts() -> None:
    """The 9x9 empty-grid counts: 729 variables; 7371, 10287 and 10530 clauses."""
    counts = [cnf.full_counts(3, e) for e in cnf.ENCODINGS]
    assert [(729, 7371), (729, 10287), (729, 10530)] == counts


@pytest.mark.parametrize("box", [2, 3, 4])
@pytest.mark.parametrize("encoding", cnf.ENCODINGS)
@pytest.mark.parametrize("reduce", [False, True])
def test_solution_satisfies_and_wrong_grid_does_not(box: int, encoding: str, reduce: bool) -> None:
    """A solution satisfies every clause; the same grid with two cells swapped does not."""
    grid = formula_grid(box, seed=box)
    puzzle = with_blanks(grid, 0.5, seed=box)
    formula = cnf.encode(puzzle, encoding, reduce)
    assert satisfies(formula, true_vars_of(formula, grid))
    empties = [c for c, d in enumerate(puzzle.cells) if not d]
    a = empties[0]
    b = next(c for c in empties[1:] if grid[c] != grid[a])
    wrong = list(grid)
    wrong[a], wrong[b] = wrong[b], wrong[a]
    assert not satisfies(formula, true_vars_of(formula, wrong))


@pytest.mark.parametrize("encoding", cnf.ENCODINGS)
def test_reduced_models_are_exactly_the_solutions(encoding: str) -> None:
    """On a small 4x4, the reduced CNF's models decode one-to-one to the brute-force solutions."""
    puzzle = Puzzle.parse("....34.2..43432.")  # r1c1,r1c2,r3c1,r3c2 can swap 1 and 2
    blanks = [c for c, d in enumerate(puzzle.cells) if not d]
    solutions = set()
    for fill in itertools.product(range(1, 5), repeat=len(blanks)):
        cells = list(puzzle.cells)
        for c, d in zip(blanks, fill, strict=True):
            cells[c] = d
        if solves(puzzle, tuple(cells)):
            solutions.add(tuple(cells))
    formula = cnf.encode(puzzle, encoding, reduce=True)
    assert 14 == formula.nvars
    decoded = []
    for bits in itertools.product((False, True), repeat=formula.nvars):
        true_vars = {v for v, on in enumerate(bits, start=1) if on}
        if satisfies(formula, true_vars):
            decoded.append(cnf.decode(formula, sorted(true_vars)))
    assert len(solutions) > 1
    assert sorted(solutions) == sorted(decoded)


def test_reduced_variables_are_the_candidates_numbered_densely() -> None:
    """reduce keeps one variable per (empty cell, digit not given among its peers), 1..V."""
    box = 4
    n = box * box
    puzzle = with_blanks(formula_grid(box, seed=7), 0.6, seed=7)
    formula = cnf.encode(puzzle, "minimal", reduce=True)
    expected = [
        (c, d)
        for c in range(n * n)
        if not puzzle.cells[c]
        for d in range(1, n + 1)
        if not any(puzzle.cells[p] == d for p in range(n * n) if p != c and same_unit(box, c, p))
    ]
    assert expected == list(zip(formula.var_cell, formula.var_digit, strict=True))
    used = {abs(lit) for clause in formula.clauses for lit in clause}
    assert set(range(1, formula.nvars + 1)) == used


@pytest.mark.parametrize("encoding", cnf.ENCODINGS)
def test_reduce_shrinks_hardest(encoding: str) -> None:
    """On Norvig's hardest, reduce always leaves fewer variables and clauses, all used."""
    for puzzle in public_set("norvig-hardest.txt"):
        full = cnf.encode(puzzle, encoding, reduce=False)
        small = cnf.encode(puzzle, encoding, reduce=True)
        used = {abs(lit) for clause in small.clauses for lit in clause}
        assert "" == small.contradiction
        assert set(range(1, small.nvars + 1)) == used
        assert small.nvars < full.nvars
        assert small.nclauses < full.nclauses


@pytest.mark.parametrize("encoding", cnf.ENCODINGS)
def test_reduce_refutes_duplicate_givens(encoding: str) -> None:
    """Two equal givens in a row reduce to the empty clause, naming both cells."""
    puzzle = Puzzle.parse("5.5" + "." * 78)
    formula = cnf.encode(puzzle, encoding, reduce=True)
    assert [[]] == formula.clauses
    assert "digit 5 is given twice among peers r1c1 and r1c3" == formula.contradiction


def test_reduce_refutes_cell_without_digit() -> None:
    """A cell whose peers hold every digit reduces to the empty clause, naming the cell."""
    puzzle = Puzzle.parse("123." + "...." + "...." + "...4")
    formula = cnf.encode(puzzle, "efficient", reduce=True)
    assert (0, [[]]) == (formula.nvars, formula.clauses)
    assert "cell r1c4 has no digit left" == formula.contradiction


def test_unreduced_givens_are_unit_clauses() -> None:
    """Without reduce, each given adds one unit clause on top of the empty grid's clauses."""
    puzzle = Puzzle.parse("1..." + ".2.." + "...." + "...4")
    formula = cnf.encode(puzzle, "minimal", reduce=False)
    _, empty_count = cnf.full_counts(2, "minimal")
    assert [[1], [22], [64]] == formula.clauses[empty_count:]


def test_decode_reads_a_model() -> None:
    """decode turns a model into the grid, givens included."""
    grid = formula_grid(2)
    puzzle = with_blanks(grid, 0.5)
    formula = cnf.encode(puzzle, "extended", reduce=True)
    true_vars = true_vars_of(formula, grid)
    model = [v if v in true_vars else -v for v in range(1, formula.nvars + 1)]
    assert tuple(grid) == cnf.decode(formula, model)


def test_decode_refuses_a_cell_with_no_digit() -> None:
    """A model leaving a cell with no true digit raises BackendError naming the cell."""
    formula = cnf.encode(Puzzle.parse("." * 16), "minimal", reduce=False)
    model = [-v for v in range(1, 65)]
    with pytest.raises(BackendError, match="cell r1c1 decodes to no digit"):
        cnf.decode(formula, model)


def test_decode_refuses_a_cell_with_two_digits() -> None:
    """A model giving one cell two true digits raises BackendError naming the cell."""
    grid = formula_grid(2)
    formula = cnf.encode(Puzzle.from_digits(tuple(grid)), "minimal", reduce=False)
    true_vars = true_vars_of(formula, grid) | {16 + 1 + (grid[4] % 4)}  # r2c1, a 2nd digit
    model = sorted(true_vars)
    with pytest.raises(BackendError, match="cell r2c1 decodes to two digits"):
        cnf.decode(formula, model)


def test_blocking_clause_negates_the_true_literals() -> None:
    """The blocking clause is the negation of the model's true variables."""
    assert [-1, -4] == cnf.blocking_clause([1, -2, -3, 4])


def test_unknown_encoding_is_refused() -> None:
    """An unknown encoding name raises BackendError naming it."""
    with pytest.raises(BackendError, match="'tiny'"):
        cnf.encode(Puzzle.parse("." * 16), "tiny")
