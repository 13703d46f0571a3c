"""The ``dlx`` backend: Knuth's Algorithm X on dancing links, for every grid size.

Sudoku as exact cover
---------------------
Columns are the constraints, in this order: *cell* ``c`` is filled, *row* ``r`` holds digit
``d``, *column* ``c`` holds ``d``, *box* ``b`` holds ``d``. Rows are the ``(cell, digit)``
candidates; each covers exactly four columns. :meth:`DlxBackend.encode` pre-selects the givens:
it builds the matrix that remains once every given's row is chosen, that is only the columns
no given covers and only the candidates that clash with no given. Givens that repeat a digit
in a unit cannot all be selected, so such a puzzle is UNSAT before the search starts.

The links
---------
The matrix is held in flat lists, as in Knuth's "Dancing links" (2000): the four nodes of
candidate row ``r`` are ``4r .. 4r+3``, and the header of column ``c`` is node ``header + c``,
after every row node. ``up``/``down`` make each column a circular list through its header;
``col`` names a row node's column. Rows are never unlinked sideways, so instead of
``left``/``right`` links each node keeps the tuple of the other three nodes of its row in
Knuth's order (to its right, cyclically). The header list is
replaced by ``size``: one packed int per column, ``rows << shift | column``, plus ``covered``
while the column is covered, so ``min(size)`` is Knuth's S heuristic (the column with the
fewest rows, the first one on ties) in a single C-level call, and ``min(size) >= covered``
means every column is covered: a solution.

The search is Algorithm X, iterative: choose a column (by default :func:`fewest_rows`), cover
it, and try its rows top to bottom (candidates in cell, then digit order); selecting a row
covers its other three columns, undoing it uncovers them in reverse.

Counting (see :mod:`backends.base`)
-----------------------------------
``nodes``
    1 for the root plus 1 per row tried (selected). A column with exactly one row is a forced
    move: its row is still a node, but not a guess. A row whose selection empties another
    column is a node too; the dead end shows one level down when that empty column is chosen.
``guesses``
    Chosen columns with more than one row. A puzzle that forced moves alone solve reports 0.
``backtracks``
    Tried rows that the search unselects before moving on: dead ends, exhausted subtrees,
    and, when counting to two, a row whose subtree held a solution.
``updates`` (native)
    Knuth's count: every unlink that covering performs, one for taking a column out of the
    header list plus one per node taken out of its column. An empty column that is chosen is
    covered and uncovered at once, as in Knuth's program, and so counts 1. Relinks (uncovering)
    are not counted; they mirror unlinks one for one. The pre-selection of the givens in
    :meth:`~DlxBackend.encode` is not search and counts nothing.
``columns``, ``rows`` (native)
    The size of the matrix the search starts from, after the givens are pre-selected.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import ClassVar

from backends.base import Backend, Option, SearchOutcome, SolveResult, Status
from backends.engines.deadline import Deadline, after
from backends.puzzle import Grid, Puzzle, geometry


@dataclass(frozen=True)
class Matrix:
    """The exact-cover matrix left after the givens, as dancing links (see the module docs).

    Built by :func:`build_matrix`; :func:`search` works on copies of the link lists, so one
    matrix can be searched any number of times.
    """

    givens: Grid  # the puzzle's digits, 0 for empty
    n: int  # digits per unit
    consistent: bool  # False when two givens repeat a digit in a unit
    candidates: tuple[int, ...]  # per row: its candidate, cell * n + digit - 1
    header: int  # node number of column 0's header (= 4 * rows)
    up: tuple[int, ...]
    down: tuple[int, ...]
    col: tuple[int, ...]  # per row node: its column
    others: tuple[tuple[int, int, int], ...]  # per row node: the rest of its row, cyclically
    size: tuple[int, ...]  # per column: rows << shift | column
    shift: int
    covered: int  # added to a covered column's size: above every uncovered value

    @property
    def ncols(self) -> int:
        """How many columns (constraints no given meets) the matrix holds."""
        return len(self.size)

    @property
    def nrows(self) -> int:
        """How many candidate rows the matrix holds."""
        return len(self.candidates)

    def cell_digit(self, node: int) -> tuple[int, int]:
        """The (cell, digit) of the row that row node ``node`` belongs to."""
        cell, d = divmod(self.candidates[node >> 2], self.n)
        return cell, d + 1


@cache
def candidate_columns(box: int) -> tuple[tuple[int, int, int, int], ...]:
    """Per candidate ``cell * n + digit - 1``: the four full-matrix columns it covers, in order.

    Full-matrix column numbers: cell ``c`` is ``c``; row ``r`` holds ``d`` is ``n*n + r*n + d-1``;
    column ``c`` holds ``d`` is ``2*n*n + c*n + d-1``; box ``b`` holds ``d`` is
    ``3*n*n + b*n + d-1``.
    """
    geo = geometry(box)
    n, area = geo.n, geo.ncells
    return tuple(
        (
            cell,
            area + geo.row_of[cell] * n + d,
            2 * area + geo.col_of[cell] * n + d,
            3 * area + geo.box_of[cell] * n + d,
        )
        for cell in range(area)
        for d in range(n)
    )


@cache
def row_others(box: int) -> tuple[tuple[int, int, int], ...]:
    """Per row node ``4r + k`` (for every possible row): the other three nodes of row ``r``.

    Knuth's order: to the right, cyclically. A matrix of ``R`` rows uses the first ``4R``.
    """
    rows = box**6
    return tuple(
        (4 * r + (k + 1) % 4, 4 * r + (k + 2) % 4, 4 * r + (k + 3) % 4)
        for r in range(rows)
        for k in range(4)
    )


def build_matrix(puzzle: Puzzle) -> Matrix:
    """The dancing-links matrix of ``puzzle`` with its givens pre-selected."""
    n = puzzle.n
    cells = puzzle.cells
    table = candidate_columns(puzzle.box)
    nfull = 4 * len(cells)
    met = bytearray(nfull)  # full-matrix columns the givens cover
    consistent = True
    for cell, digit in enumerate(cells):
        if digit:
            for f in table[cell * n + digit - 1]:
                if met[f]:
                    consistent = False
                met[f] = 1
    index = [-1] * nfull  # full-matrix column -> matrix column, -1 when a given covers it
    ncols = 0
    for f in range(nfull):
        if not met[f]:
            index[f] = ncols
            ncols += 1
    candidates: list[int] = []
    if consistent:
        for cell, digit in enumerate(cells):
            if not digit:
                for cand in range(cell * n, cell * n + n):
                    a, b, c, d = table[cand]
                    if not (met[a] or met[b] or met[c] or met[d]):
                        candidates.append(cand)
    col = [index[f] for cand in candidates for f in table[cand]]
    header = len(col)
    up = list(range(header + ncols))
    down = up.copy()
    last = up[header:]  # per column: its bottom node so far
    rows_in = [0] * ncols
    for node, c in enumerate(col):
        above = last[c]
        down[above] = node
        up[node] = above
        last[c] = node
        rows_in[c] += 1
    for c, bottom in enumerate(last):
        down[bottom] = header + c
        up[header + c] = bottom
    shift = max(ncols, 1).bit_length()
    return Matrix(
        givens=cells,
        n=n,
        consistent=consistent,
        candidates=tuple(candidates),
        header=header,
        up=tuple(up),
        down=tuple(down),
        col=tuple(col),
        others=row_others(puzzle.box)[:header],
        size=tuple(rows << shift | c for c, rows in enumerate(rows_in)),
        shift=shift,
        covered=(n + 1) << shift,
    )


# --- column choice: (size, covered) -> the packed size of the column to branch on ------------


def fewest_rows(size: list[int], covered: int) -> int:
    """Knuth's S heuristic: the uncovered column with the fewest rows, first on ties.

    Returns its packed value (``rows << shift | column``), or a value ``>= covered`` when every
    column is covered.
    """
    return min(size, default=covered)


def first_column(size: list[int], covered: int) -> int:
    """The first uncovered column, whatever its number of rows (Algorithm X without S)."""
    for value in size:
        if value < covered:
            return value
    return covered


Choose = Callable[[list[int], int], int]
CHOOSES: dict[str, Choose] = {"fewest": fewest_rows, "first": first_column}


def _decode(matrix: Matrix, path: Sequence[list[int]]) -> Grid:
    grid = list(matrix.givens)
    for _, node in path:
        cell, digit = matrix.cell_digit(node)
        grid[cell] = digit
    return tuple(grid)


def search(
    matrix: Matrix,
    limit: int = 1,
    deadline: float | None = None,
    choose: Choose = fewest_rows,
) -> tuple[SearchOutcome, int]:
    """Algorithm X on ``matrix`` for up to ``limit`` solutions: the outcome and the updates.

    One function of about 120 lines, on purpose: ``cover`` and ``uncover`` are closures over
    the link lists, and the loop below them is the whole search; split apart, every cover
    would pass six lists, in the hottest path of the backend.

    The counters are those of the module docstring. ``deadline`` is a
    :func:`time.perf_counter` value; once it has passed (see
    :class:`~backends.engines.deadline.Deadline`) the search returns TIMEOUT with its counters
    so far and any solution already in hand.
    """
    if limit < 1:
        raise ValueError(f"limit must be 1 or more, got {limit!r}")
    if not matrix.consistent:
        return SearchOutcome(Status.UNSAT, (), 1, 0, 0), 0
    up, down, size = list(matrix.up), list(matrix.down), list(matrix.size)
    col, others, header = matrix.col, matrix.others, matrix.header
    covered = matrix.covered
    one = 1 << matrix.shift
    two = one + one
    mask = one - 1

    def cover(c: int) -> int:
        """Take column ``c`` out, and its rows out of their other columns; the unlinks."""
        size[c] += covered
        h = header + c
        i = down[h]
        unlinks = 1
        while i != h:
            a, b, e = others[i]
            u = up[a]
            d = down[a]
            down[u] = d
            up[d] = u
            size[col[a]] -= one
            u = up[b]
            d = down[b]
            down[u] = d
            up[d] = u
            size[col[b]] -= one
            u = up[e]
            d = down[e]
            down[u] = d
            up[d] = u
            size[col[e]] -= one
            unlinks += 3
            i = down[i]
        return unlinks

    def uncover(c: int) -> None:
        """Undo :func:`cover` of column ``c``, in reverse order."""
        h = header + c
        i = up[h]
        while i != h:
            a, b, e = others[i]
            size[col[e]] += one
            up[down[e]] = e
            down[up[e]] = e
            size[col[b]] += one
            up[down[b]] = b
            down[up[b]] = b
            size[col[a]] += one
            up[down[a]] = a
            down[up[a]] = a
            i = up[i]
        size[c] -= covered

    clock = Deadline(deadline)
    nodes = 1
    guesses = backtracks = updates = 0
    solutions: list[Grid] = []
    path: list[list[int]] = []  # per level: [chosen column, row node tried there (-1: none yet)]

    while True:
        best = choose(size, covered)
        if best >= covered:  # every column covered: the rows on the path are a solution
            solutions.append(_decode(matrix, path))
            if len(solutions) >= limit:
                return SearchOutcome(
                    Status.SOLVED, tuple(solutions), nodes, guesses, backtracks
                ), updates
        elif best < one:
            updates += 1  # an empty column: covered and uncovered at once, as Knuth does
        else:
            c = best & mask
            if best >= two:
                guesses += 1
            updates += cover(c)
            path.append([c, -1])

        # Move on: unselect the deepest level's row, if any, and select the next row of its
        # column; pop the levels whose column has no rows left, uncovering the column.
        while path:
            level = path[-1]
            c, r = level
            if r >= 0:
                a, b, e = others[r]
                uncover(col[e])
                uncover(col[b])
                uncover(col[a])
                backtracks += 1
                r = down[r]
            else:
                r = down[header + c]
            if r < header:
                level[1] = r
                nodes += 1
                a, b, e = others[r]
                updates += cover(col[a]) + cover(col[b]) + cover(col[e])
                if nodes >= clock.next and clock.passed(nodes):
                    return SearchOutcome(
                        Status.TIMEOUT, tuple(solutions), nodes, guesses, backtracks
                    ), updates
                break
            path.pop()
            uncover(c)
        else:
            status = Status.SOLVED if solutions else Status.UNSAT
            return SearchOutcome(status, tuple(solutions), nodes, guesses, backtracks), updates


class DlxBackend(Backend):
    """Exact cover by Algorithm X on dancing links; pure Python, no package needed."""

    name: ClassVar[str] = "dlx"
    summary: ClassVar[str] = (
        "Knuth's Algorithm X on dancing links: exact cover, fewest-rows column (S heuristic)"
    )
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "choose",
            "fewest",
            "column to branch on: fewest (fewest rows, first on ties: Knuth's S heuristic), "
            "first (the first uncovered column)",
            choices=tuple(CHOOSES),
        ),
    )
    native_counters: ClassVar[tuple[str, ...]] = ("updates", "columns", "rows")

    def encode(self, puzzle: Puzzle) -> Matrix:
        """The exact-cover matrix with the givens pre-selected, as dancing links."""
        return build_matrix(puzzle)

    def solve(
        self, encoded: Matrix, limit: int = 1, time_limit: float | None = None
    ) -> SolveResult:
        """Search for up to ``limit`` solutions; TIMEOUT (with counters) once time runs out."""
        choose = CHOOSES[self.config["choose"]]
        outcome, updates = search(encoded, limit, after(time_limit), choose)
        native = {"updates": updates, "columns": encoded.ncols, "rows": encoded.nrows}
        return outcome.result(native=native)
