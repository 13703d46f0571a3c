"""CNF encodings of Sudoku, in pure Python (no SAT solver is imported here).

One Boolean variable says "cell ``c`` holds digit ``d``". The three encodings of Lynce and
Ouaknine (2006, "Sudoku as a SAT problem") are built from four families of clauses:

=====================  =====================================================  ============
family                 meaning                                                clauses
=====================  =====================================================  ============
``cell_at_least_one``  every cell holds some digit                            n^2
``unit_at_most_one``   no digit twice among peers (pairwise)                  n * pairs
``cell_at_most_one``   no cell holds two digits (pairwise)                    n^2 C(n,2)
``unit_at_least_one``  every unit holds every digit                           3n * n
=====================  =====================================================  ============

* ``minimal``   = cell_at_least_one + unit_at_most_one. It is enough: a unit has ``n`` cells,
  each holds at least one digit and each digit appears at most once, so each cell holds
  exactly one.
* ``efficient`` = minimal + cell_at_most_one.
* ``extended``  = efficient + unit_at_least_one (tdoku calls it "complete").

``pairs`` is the number of pairs of peer cells, ``n^2 * len(peers) / 2``. A pair that shares
both a row and a box gets one clause per digit, not two, so this module's ``minimal`` 9x9 CNF
has 81 + 9 * 810 = 7371 clauses where the paper, which repeats such pairs, counts 8829.

Givens are unit clauses, unless ``reduce=True`` (Kwon and Jain 2006, "optimized encoding"):
then a given fixes its cell, its digit is false in every peer, every clause a fixed value
satisfies is dropped, every literal it falsifies is dropped, and the fixed variables are
dropped. The variables left are renumbered densely ``1..V`` in (cell, digit) order: a gap
would leave an unconstrained variable that a solver may set true, and decoding would then
read a wrong digit. When reduction leaves an empty clause (two equal givens among peers, an
empty cell with no digit left, a unit with no place left for a digit), the CNF is the single
empty clause and :attr:`Cnf.contradiction` says why.

:func:`count_models` counts the models of a CNF with any solver it is handed one call of:
solve, decode the first model, add the clause that forbids that grid, solve again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations

from backends.base import SolveResult, Status
from backends.errors import BackendError
from backends.puzzle import Geometry, Grid, Puzzle, geometry

#: The encodings, in order of size.
ENCODINGS: tuple[str, ...] = ("minimal", "efficient", "extended")

#: Which clause families each encoding includes (besides the always-present minimal pair).
_WITH_CELL_AT_MOST_ONE = frozenset({"efficient", "extended"})
_WITH_UNIT_AT_LEAST_ONE = frozenset({"extended"})

Clause = list[int]


@dataclass(frozen=True)
class Cnf:
    """A CNF for one puzzle, and what is needed to read a model back as a grid.

    ``nvars`` is ``V``: variables are ``1..V``, every one of them used. ``var_cell[v - 1]``
    and ``var_digit[v - 1]`` name the (cell, digit) that variable ``v`` stands for.
    ``fixed`` holds the digits the encoding decided itself (the givens when ``reduce``),
    ``0`` elsewhere; decoding starts from it.
    """

    box: int
    encoding: str
    reduced: bool
    nvars: int
    clauses: list[Clause]
    var_cell: tuple[int, ...]
    var_digit: tuple[int, ...]
    fixed: Grid
    contradiction: str = ""

    @property
    def nclauses(self) -> int:
        return len(self.clauses)


@cache
def _box_cross_pairs(box: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per box unit, the cell pairs that share neither a row nor a column (index table)."""
    geo = geometry(box)
    return tuple(
        tuple(
            (a, b)
            for a, b in combinations(cells, 2)
            if geo.row_of[a] != geo.row_of[b] and geo.col_of[a] != geo.col_of[b]
        )
        for cells in geo.boxes
    )


def peer_pair_count(box: int) -> int:
    """How many unordered pairs of peer cells a grid has: ``n^2 * len(peers) / 2``."""
    geo = geometry(box)
    return sum(len(p) for p in geo.peers) // 2


def encode(puzzle: Puzzle, encoding: str = "extended", reduce: bool = True) -> Cnf:
    """The CNF of ``puzzle`` under ``encoding`` (see the module docstring)."""
    if encoding not in ENCODINGS:
        raise BackendError(f"unknown encoding {encoding!r}; expected one of {', '.join(ENCODINGS)}")
    geo = puzzle.geometry
    if reduce:
        return _encode_reduced(puzzle, geo, encoding)
    return _encode_full(puzzle, geo, encoding)


def _encode_full(puzzle: Puzzle, geo: Geometry, encoding: str) -> Cnf:
    n = geo.n
    # var(c, d) = c * n + d: already dense.
    var = [[0, *range(c * n + 1, c * n + n + 1)] for c in range(geo.ncells)]
    clauses = _clauses(geo, var, encoding, given_in_unit=set())
    clauses.extend([var[c][d]] for c, d in enumerate(puzzle.cells) if d)
    cells = tuple(c for c in range(geo.ncells) for _ in range(n))
    digits = tuple(d for _ in range(geo.ncells) for d in range(1, n + 1))
    return Cnf(
        box=puzzle.box,
        encoding=encoding,
        reduced=False,
        nvars=n * geo.ncells,
        clauses=clauses,
        var_cell=cells,
        var_digit=digits,
        fixed=(0,) * geo.ncells,
    )


def _encode_reduced(puzzle: Puzzle, geo: Geometry, encoding: str) -> Cnf:
    n = geo.n
    grid = puzzle.cells

    def refuted(reason: str) -> Cnf:
        return Cnf(puzzle.box, encoding, True, 0, [[]], (), (), grid, contradiction=reason)

    for cell, d in enumerate(grid):
        if d:
            for p in geo.peers[cell]:
                if grid[p] == d:
                    return refuted(
                        f"digit {d} is given twice among peers "
                        f"{geo.cell_name(cell)} and {geo.cell_name(p)}"
                    )
    var = [[0] * (n + 1) for _ in range(geo.ncells)]
    var_cell: list[int] = []
    var_digit: list[int] = []
    for cell, d in enumerate(grid):
        if d:
            continue
        seen = {grid[p] for p in geo.peers[cell]}
        live = [digit for digit in range(1, n + 1) if digit not in seen]
        if not live:
            return refuted(f"cell {geo.cell_name(cell)} has no digit left")
        for digit in live:
            var_cell.append(cell)
            var_digit.append(digit)
            var[cell][digit] = len(var_cell)
    given_in_unit = {(u, grid[c]) for u, unit in enumerate(geo.units) for c in unit if grid[c]}
    if encoding in _WITH_UNIT_AT_LEAST_ONE:
        for u, unit in enumerate(geo.units):
            for digit in range(1, n + 1):
                if (u, digit) not in given_in_unit and not any(var[c][digit] for c in unit):
                    return refuted(f"digit {digit} has no place left in {geo.unit_name(u)}")
    clauses = _clauses(geo, var, encoding, given_in_unit)
    return Cnf(
        box=puzzle.box,
        encoding=encoding,
        reduced=True,
        nvars=len(var_cell),
        clauses=clauses,
        var_cell=tuple(var_cell),
        var_digit=tuple(var_digit),
        fixed=grid,
    )


def _clauses(
    geo: Geometry,
    var: Sequence[Sequence[int]],
    encoding: str,
    given_in_unit: set[tuple[int, int]],
) -> list[Clause]:
    """The clauses over the variables ``var[cell][digit]`` (0 = no such variable).

    A cell without variables gets no cell clauses; a (unit, digit) already given gets no
    at-least-one clause.
    """
    n = geo.n
    digits = range(1, n + 1)
    clauses: list[Clause] = []
    cell_vars = [[v for v in row[1:] if v] for row in var]
    # cell_at_least_one
    clauses.extend(vs for vs in cell_vars if vs)
    # cell_at_most_one
    if encoding in _WITH_CELL_AT_MOST_ONE:
        for vs in cell_vars:
            clauses.extend([-a, -b] for a, b in combinations(vs, 2))
    # unit_at_most_one: rows and columns all pairs; boxes only pairs crossing rows and columns.
    for lines in (geo.rows, geo.cols):
        for unit in lines:
            for d in digits:
                vs = [var[c][d] for c in unit if var[c][d]]
                clauses.extend([-a, -b] for a, b in combinations(vs, 2))
    for pairs in _box_cross_pairs(geo.box):
        for d in digits:
            clauses.extend([-var[a][d], -var[b][d]] for a, b in pairs if var[a][d] and var[b][d])
    # unit_at_least_one
    if encoding in _WITH_UNIT_AT_LEAST_ONE:
        for u, unit in enumerate(geo.units):
            for d in digits:
                if (u, d) not in given_in_unit:
                    clauses.append([var[c][d] for c in unit if var[c][d]])
    return clauses


def full_counts(box: int, encoding: str) -> tuple[int, int]:
    """(variables, clauses) of the unreduced CNF of an empty grid, from the formulas."""
    n = box * box
    clauses = n * n + n * peer_pair_count(box)
    if encoding in _WITH_CELL_AT_MOST_ONE:
        clauses += n * n * (n * (n - 1) // 2)
    if encoding in _WITH_UNIT_AT_LEAST_ONE:
        clauses += 3 * n * n
    return n * n * n, clauses


def decode(cnf: Cnf, model: Sequence[int]) -> Grid:
    """The grid a model (a list of signed literals) stands for.

    Raises :class:`BackendError` naming the first cell that has no true digit, or two.
    """
    geo = geometry(cnf.box)
    grid = list(cnf.fixed)
    chosen = [0] * geo.ncells
    for lit in model:
        if lit <= 0:
            continue
        if lit > cnf.nvars:
            raise BackendError(f"model literal {lit} is outside 1..{cnf.nvars}")
        cell = cnf.var_cell[lit - 1]
        digit = cnf.var_digit[lit - 1]
        if chosen[cell] or grid[cell]:
            first = chosen[cell] or grid[cell]
            raise BackendError(
                f"cell {geo.cell_name(cell)} decodes to two digits, {first} and {digit}"
            )
        chosen[cell] = digit
    for cell in range(geo.ncells):
        if chosen[cell]:
            grid[cell] = chosen[cell]
        elif not grid[cell]:
            raise BackendError(f"cell {geo.cell_name(cell)} decodes to no digit")
    return tuple(grid)


def blocking_clause(model: Sequence[int]) -> Clause:
    """A clause that forbids this model's true cell variables all being true again."""
    return [-lit for lit in model if lit > 0]


#: One call of the solver: its translated status, and the model (signed literals) if SOLVED.
SolveOnce = Callable[[], tuple[Status, Sequence[int] | None]]


@dataclass(frozen=True)
class Count:
    """How a count ended: the last call's status, the first grid, the models found."""

    status: Status
    first: Grid | None
    found: int

    def result(self, native: Mapping[str, int | float], engine: str, at: str = "") -> SolveResult:
        """The count as the contract's result; TIMEOUT and UNKNOWN say how far it got (and
        ``at`` what limit, when the caller names one)."""
        if self.status in (Status.TIMEOUT, Status.UNKNOWN):
            where = f" at {at}" if at else ""
            message = f"{engine} stopped{where} after {self.found} solution(s)"
            return SolveResult(self.status, self.first, self.found, native=native, message=message)
        if not self.found:
            return SolveResult(Status.UNSAT, native=native)
        return SolveResult(Status.SOLVED, self.first, self.found, native=native)


def count_models(
    encoded: Cnf, limit: int, solve_once: SolveOnce, add_clause: Callable[[list[int]], None]
) -> Count:
    """Up to ``limit`` models of ``encoded``, the first decoded; a call that ends other than
    SOLVED ends the count with its status."""
    first = None
    found = 0
    status = Status.UNSAT
    while found < limit:
        status, model = solve_once()
        if status is not Status.SOLVED or model is None:
            break
        first = first or decode(encoded, model)
        found += 1
        block = blocking_clause(model)
        if not block:  # nothing left to choose: this grid is the only one
            break
        add_clause(block)
    return Count(status, first, found)
