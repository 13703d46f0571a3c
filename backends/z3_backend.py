"""The ``z3`` backend: Sudoku as an SMT problem over bounded integers, solved by Z3.

``encode`` builds the model: one integer per empty cell, bounded to ``1..n``, a given is a
constant, and ``Distinct`` over every unit (timed apart, as the ``cpsat`` backend builds its
model). ``solve`` checks it; for a second solution it adds "some empty cell differs from the
first grid" inside a ``push``/``pop`` scope, so the encoded model is left as it was.

The solver is Z3's finite-domain one (``SolverFor("QF_FD")``), which bit-blasts the bounded
integers to SAT. Z3's default solver (linear arithmetic) was measured far slower
(docs/benchmarks.md). Even so Z3 is slow beside the other SAT backends, and marked ``slow``.

Its time limit is Z3's own ``timeout`` parameter, set per check to what is left; a check it
stops answers ``unknown`` with the reason ``timeout`` or ``canceled``, which is TIMEOUT. Z3
looks at it only between steps of its own, so it can stop well after its limit (the harness
kills the worker at the run's timeout in any case).

Z3's SAT-core statistics go in ``native`` under Z3's names with spaces as underscores
(``sat conflicts`` is ``sat_conflicts``), summed over both checks; Z3 omits a counter it
never used, and that cell stays empty. ``nodes``, ``guesses`` and ``backtracks`` stay ``None``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, ClassVar

from backends.base import Backend, SolveResult, Status
from backends.errors import UnknownStatusError
from backends.puzzle import Grid, Puzzle

#: The statistics copied from Z3's ``statistics()``, under Z3's names.
STATS: tuple[str, ...] = (
    "sat conflicts",
    "sat decisions",
    "sat propagations 2ary",
    "sat propagations nary",
    "sat restarts",
)

#: Z3's "no timeout" value (its parameter is an unsigned 32-bit number of milliseconds).
NO_TIMEOUT_MS = 2**32 - 1

#: Z3's ``reason_unknown()`` texts that mean "stopped by the time limit".
_STOPPED = frozenset({"timeout", "canceled"})


def translate_status(answer: str, reason: str = "") -> Status:
    """Z3's check result (as text: sat, unsat, unknown) and its reason, as a Status."""
    if answer == "sat":
        return Status.SOLVED
    if answer == "unsat":
        return Status.UNSAT
    if answer == "unknown":
        return Status.TIMEOUT if reason in _STOPPED else Status.UNKNOWN
    raise UnknownStatusError(f"Z3 returned an unknown result {answer!r}")


@dataclass
class Z3Model:
    """A built model: the solver holding the constraints, and each empty cell's variable."""

    puzzle: Puzzle
    solver: Any
    cells: dict[int, Any]  # empty cell -> its Int variable


class Z3Backend(Backend):
    """Bounded integers and Distinct per unit, solved by Z3's finite-domain solver."""

    name: ClassVar[str] = "z3"
    summary: ClassVar[str] = (
        "SMT: an integer per cell, Distinct per unit, Z3's finite-domain (QF_FD) solver"
    )
    requires: ClassVar[str] = "z3-solver"
    imports: ClassVar[str] = "z3"
    native_counters: ClassVar[tuple[str, ...]] = tuple(k.replace(" ", "_") for k in STATS)
    slow: ClassVar[bool] = True

    def encode(self, puzzle: Puzzle) -> Z3Model:
        """Build the solver with its variables and constraints (no search)."""
        import z3

        solver = z3.SolverFor("QF_FD")
        cells = {c: z3.Int(f"c{c}") for c, d in enumerate(puzzle.cells) if not d}
        value = [cells[c] if c in cells else z3.IntVal(d) for c, d in enumerate(puzzle.cells)]
        for var in cells.values():
            solver.add(var >= 1, var <= puzzle.n)
        for unit in puzzle.geometry.units:
            solver.add(z3.Distinct([value[c] for c in unit]))
        return Z3Model(puzzle, solver, cells)

    def solve(
        self, encoded: Z3Model, limit: int = 1, time_limit: float | None = None
    ) -> SolveResult:
        """Check, block the grid, check again (limit 2); reading the model included."""
        import z3

        solver = encoded.solver
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        first: Grid | None = None
        found = 0
        status = Status.UNSAT
        solver.push()
        try:
            while found < limit:
                left_ms = NO_TIMEOUT_MS
                if deadline is not None:
                    left_ms = max(int((deadline - time.perf_counter()) * 1000), 1)
                solver.set("timeout", left_ms)
                answer = solver.check()
                status = translate_status(
                    str(answer), solver.reason_unknown() if answer == z3.unknown else ""
                )
                if status is not Status.SOLVED:
                    break
                model = solver.model()
                digits = {c: model[var].as_long() for c, var in encoded.cells.items()}
                first = first or tuple(digits.get(c, d) for c, d in enumerate(encoded.puzzle.cells))
                found += 1
                if not encoded.cells:  # every cell given: nothing else can differ
                    break
                solver.add(z3.Or([var != digits[c] for c, var in encoded.cells.items()]))
            stats = solver.statistics()
            reported = set(stats.keys())  # a z3 Statistics object, not a dict
            native = {k.replace(" ", "_"): stats.get_key_value(k) for k in STATS if k in reported}
        finally:
            solver.pop()
        if status in (Status.TIMEOUT, Status.UNKNOWN):
            message = f"Z3 stopped ({solver.reason_unknown()}) after {found} solution(s)"
            return SolveResult(status, first, found, native=native, message=message)
        if not found:
            return SolveResult(Status.UNSAT, native=native)
        return SolveResult(Status.SOLVED, first, found, native=native)
