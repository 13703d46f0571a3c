"""The ``python-constraint`` backend: Sudoku as a CSP for the python-constraint2 library.

The library is the maintained ``python-constraint2`` package (it imports as ``constraint``,
and ships a Cython-compiled core). The old ``python-constraint`` 1.x package imports under
the same name; :meth:`PythonConstraintBackend.unavailable_reason` refuses it.

Model
-----
* one variable per cell (its index ``0 .. n*n - 1``);
* a given's domain is its one value;
* an empty cell's domain is ``1..n`` minus the givens among its peers when ``prune=true``
  (the default: it is what a modeller writes by hand), or all of ``1..n`` with
  ``prune=false``. If pruning leaves a cell with no value, :meth:`encode` notes the cell and
  :meth:`solve` answers UNSAT without searching;
* one ``AllDifferentConstraint`` per unit (rows, columns, boxes, from
  :class:`backends.puzzle.Geometry`), rows first.

Two equal givens in a unit (an inconsistent puzzle) make the row, column or box constraint
fail whenever the search assigns both, so the library finds no solution: UNSAT.

Options
-------
``solver``
    Which of the library's complete solvers searches. The choices are small named factory
    functions in :data:`SOLVERS`: ``backtracking`` (``BacktrackingSolver``, iterative, picks
    the unassigned variable with the fewest values left at every step), ``recursive``
    (``RecursiveBacktrackingSolver``, same choice, recursive) and ``optimized``
    (``OptimizedBacktrackingSolver``, the library's own default, which orders the variables
    once, before search). All three forward-check. ``backtracking`` tries a variable's values
    from the last one down, the other two from the first one up. ``MinConflictsSolver``
    (local search: it can neither prove UNSAT nor count) and ``ParallelSolver`` (all
    solutions only) are left out. The default, ``backtracking``, was chosen by measurement
    with ``benchmarks/bench_python_constraint.py`` (Norvig's hardest and the first 20 of
    top95): ``backtracking`` and ``recursive`` were within noise of each other, and
    ``optimized`` was several times slower (docs/benchmarks.md has the figures).
    Of the first two, ``backtracking`` is iterative, so 25x25 grids do not deepen the stack.
``prune``
    Prune empty cells' domains by their givens' peers at encode time (see *Model*). It does
    not change the search of ``backtracking`` or ``recursive`` on the puzzles measured (the
    givens, having one value, are assigned first, and forward checking then removes the
    same values), but ``optimized`` fixes its variable order before search, by domain size,
    so it profits a great deal.
``count_checks``
    Count the calls to the ``AllDifferentConstraint`` s (a thin subclass wraps
    ``__call__``), reported as ``native["constraint_checks"]``. Each call is one check of
    one unit after the search assigns a value, forward-checking included.

Limits and counters
-------------------
``limit=1`` calls ``Problem.getSolution``; a larger limit takes at most ``limit`` solutions
from ``Problem.getSolutionIter`` and never enumerates the rest.

The library has no time limit, so :meth:`solve` ignores ``time_limit``; the harness enforces
limits from outside the worker process. The library exposes no search counters, and its
compiled solvers cannot be hooked, so ``nodes``, ``guesses`` and ``backtracks`` are always
``None``. ``constraint_checks`` is not a node count: each value the search tries is checked
against the cell's row, column and box constraints in turn, stopping at the first that fails,
so one to three checks per value tried. Counting costs little beside the solve
(docs/benchmarks.md), so it is on by default.

Sizes: ``max_box`` is 5 and the harness's timeout decides: the more blanks a 16x16 or 25x25
grid has, the sooner the search outgrows any timeout (docs/benchmarks.md).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, ClassVar

from backends.base import Backend, Option, SolveResult, Status, parse_bool
from backends.errors import BackendError, BackendUnavailableError, UnknownStatusError
from backends.puzzle import Geometry, Grid, Puzzle

PACKAGE = "python-constraint2"


def backtracking(lib: ModuleType) -> Any:
    """The library's iterative ``BacktrackingSolver``: fewest values first, at every step."""
    return lib.BacktrackingSolver()


def recursive(lib: ModuleType) -> Any:
    """The library's ``RecursiveBacktrackingSolver``: the same choice, recursively."""
    return lib.RecursiveBacktrackingSolver()


def optimized(lib: ModuleType) -> Any:
    """The library's default, ``OptimizedBacktrackingSolver``: a variable order fixed up front."""
    return lib.OptimizedBacktrackingSolver()


#: The solver option's choices: name -> factory taking the imported ``constraint`` module.
SOLVERS: dict[str, Callable[[ModuleType], Any]] = {
    "backtracking": backtracking,
    "recursive": recursive,
    "optimized": optimized,
}


def _import_library() -> ModuleType:
    """The ``constraint`` module of python-constraint2, or BackendUnavailableError."""
    reason = PythonConstraintBackend.unavailable_reason()
    if reason is not None:
        raise BackendUnavailableError(f"backend 'python-constraint' is unavailable: {reason}")
    import constraint

    return constraint


def _installed_version(distribution: str) -> str | None:
    from importlib import metadata  # only when asked: a heavy import

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


@dataclass
class ConstraintProblem:
    """What :meth:`PythonConstraintBackend.encode` builds and :meth:`solve` searches."""

    problem: Any  # a constraint.Problem
    geometry: Geometry
    dead_cell: int | None = None  # a cell that pruning left without a value
    checks: list[int] = field(default_factory=lambda: [0])  # constraint calls, when counted


def _counting_all_different(lib: ModuleType, checks: list[int]) -> type:
    """An ``AllDifferentConstraint`` subclass that adds one to ``checks[0]`` per call."""

    class CountingAllDifferent(lib.AllDifferentConstraint):  # type: ignore[misc, name-defined]
        def __call__(
            self,
            variables: Any,
            domains: dict[Any, Any],
            assignments: dict[Any, Any],
            forwardcheck: Any = False,
        ) -> bool:
            checks[0] += 1
            return super().__call__(variables, domains, assignments, forwardcheck)

    return CountingAllDifferent


def candidates(puzzle: Puzzle, cell: int, prune: bool) -> list[int]:
    """The domain of ``cell`` in the model: its given, or the digits ``prune`` leaves."""
    given = puzzle.cells[cell]
    if given:
        return [given]
    digits = range(1, puzzle.n + 1)
    if not prune:
        return list(digits)
    taken = {puzzle.cells[peer] for peer in puzzle.geometry.peers[cell]}
    return [d for d in digits if d not in taken]


def translate_status(native: object) -> Status:
    """The Status of one native outcome: a solution dict is SOLVED, ``None`` is UNSAT."""
    if native is None:
        return Status.UNSAT
    if isinstance(native, dict):
        return Status.SOLVED
    raise UnknownStatusError(f"python-constraint returned {native!r}, not a solution or None")


def _decode(solution: Mapping[int, int], geometry: Geometry) -> Grid:
    try:
        return tuple(int(solution[cell]) for cell in range(geometry.ncells))
    except KeyError as exc:
        raise BackendError(f"python-constraint's solution has no value for cell {exc}") from None


class PythonConstraintBackend(Backend):
    """Sudoku as AllDifferent constraints over units, searched by python-constraint2."""

    name: ClassVar[str] = "python-constraint"
    summary: ClassVar[str] = "python-constraint2 CSP: AllDifferent per unit, forward checking"
    requires: ClassVar[str] = PACKAGE
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "solver",
            "backtracking",
            "python-constraint2 solver; backtracking is the measured default",
            choices=tuple(SOLVERS),
        ),
        Option(
            "prune",
            True,
            "remove the givens' values from their peers' domains at encode time",
            parse=parse_bool,
        ),
        Option(
            "count_checks",
            True,
            "count AllDifferent calls as native constraint_checks",
            parse=parse_bool,
        ),
    )
    native_counters: ClassVar[tuple[str, ...]] = ("constraint_checks",)

    @classmethod
    def unavailable_reason(cls) -> str | None:
        try:
            import constraint
        except ImportError:
            return f"install {PACKAGE}"
        if not hasattr(constraint, "OptimizedBacktrackingSolver"):
            old = _installed_version("python-constraint")
            found = f"python-constraint {old}" if old else "an old 'constraint' module"
            return f"install {PACKAGE} (found {found}, which lacks its solvers)"
        return None

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        # Import now, untimed, so that the first encode does not pay for loading the library.
        self._lib: ModuleType | None = (
            _import_library() if self.unavailable_reason() is None else None
        )

    def encode(self, puzzle: Puzzle) -> ConstraintProblem:
        lib = self._lib or _import_library()
        geo = puzzle.geometry
        problem = lib.Problem(SOLVERS[self.config["solver"]](lib))
        encoded = ConstraintProblem(problem=problem, geometry=geo)
        for cell in range(geo.ncells):
            domain = candidates(puzzle, cell, self.config["prune"])
            if not domain:
                encoded.dead_cell = cell
                return encoded
            problem.addVariable(cell, domain)
        if self.config["count_checks"]:
            all_different = _counting_all_different(lib, encoded.checks)
        else:
            all_different = lib.AllDifferentConstraint
        for unit in geo.units:
            problem.addConstraint(all_different(), list(unit))
        return encoded

    def solve(
        self, encoded: ConstraintProblem, limit: int = 1, time_limit: float | None = None
    ) -> SolveResult:
        """Search for up to ``limit`` solutions. ``time_limit`` is ignored (see the module)."""
        if limit < 1:
            raise BackendError(f"limit must be at least 1, got {limit!r}")
        geo = encoded.geometry
        if encoded.dead_cell is not None:
            return SolveResult(
                Status.UNSAT,
                native=self._native(encoded),
                message=f"no value left for {geo.cell_name(encoded.dead_cell)} after pruning",
            )
        encoded.checks[0] = 0
        if limit == 1:
            natives: list[object] = [encoded.problem.getSolution()]
        else:
            natives = list(itertools.islice(encoded.problem.getSolutionIter(), limit))
            natives = natives or [None]
        statuses = [translate_status(native) for native in natives]
        if statuses[0] is Status.UNSAT:
            return SolveResult(Status.UNSAT, native=self._native(encoded))
        first = natives[0]
        assert isinstance(first, dict)
        return SolveResult(
            Status.SOLVED,
            solution=_decode(first, geo),
            solutions_found=len(natives),
            native=self._native(encoded),
        )

    def _native(self, encoded: ConstraintProblem) -> dict[str, int | float]:
        return {"constraint_checks": encoded.checks[0]} if self.config["count_checks"] else {}
