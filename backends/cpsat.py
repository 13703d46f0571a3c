"""The ``cpsat`` backend: Sudoku as a CP-SAT model (Google OR-Tools).

Two models (option ``model``):

* ``alldiff`` -- one integer variable per cell, domain ``1..n`` (a given is a constant),
  and ``AddAllDifferent`` over every unit.
* ``boolean`` -- one Boolean ``x[cell, digit]``, ``AddExactlyOne`` per cell and per
  (unit, digit); a given fixes its literal true.

``encode`` builds the model (timed apart); ``solve`` runs CP-SAT with one worker and a fixed
``seed`` so that its counters repeat, then decodes. For a second solution it adds "at least
one empty cell differs from the first solution" and solves again. ``presolve=false`` turns
CP-SAT's presolve off: presolve alone solves most 9x9 puzzles, so ``num_branches`` is then 0.

CP-SAT's own statistics go in ``native``, summed over the solver calls: ``num_branches``,
``num_conflicts``, ``solver_wall_time`` (seconds, as CP-SAT reports it) and
``solver_calls``. ``nodes``, ``guesses`` and ``backtracks`` stay ``None``: CP-SAT's branches
are not the search nodes defined in :mod:`backends.base`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, ClassVar

from backends.base import Backend, Option, SolveResult, Status, parse_bool
from backends.errors import BackendError, UnknownStatusError
from backends.puzzle import Grid, Puzzle

MODELS: tuple[str, ...] = ("alldiff", "boolean")

#: Chosen by measuring with benchmarks/bench_cpsat.py: on top95 (limit 1) alldiff with presolve
#: had the lowest median encode + solve time (boolean builds its model much more slowly in
#: Python); at limit 2 the four combinations were close (docs/benchmarks.md).
DEFAULT_MODEL = "alldiff"


def translate_status(name: str, time_limit_hit: bool = False) -> Status:
    """CP-SAT's status (by name, e.g. "OPTIMAL") as a :class:`Status`.

    CP-SAT answers UNKNOWN only when a search limit stopped it; ``time_limit_hit`` says the
    call had a time limit, the only limit this backend sets, so that UNKNOWN is TIMEOUT
    (CP-SAT stops a little before its limit, by as much as a quarter of a 1 ms one, when
    its next step would not fit). MODEL_INVALID is not a result: the caller raises
    :class:`BackendError` for it.
    """
    if name in ("OPTIMAL", "FEASIBLE"):
        return Status.SOLVED
    if name == "INFEASIBLE":
        return Status.UNSAT
    if name == "UNKNOWN":
        return Status.TIMEOUT if time_limit_hit else Status.UNKNOWN
    raise UnknownStatusError(f"CP-SAT returned an unknown status {name!r}")


@dataclass
class CpSatModel:
    """A built model: the CpModel, the puzzle, and how to read each cell's digit."""

    puzzle: Puzzle
    kind: str
    model: Any  # ortools.sat.python.cp_model.CpModel
    cell_vars: list[Any]  # alldiff: IntVar per cell
    digit_lits: list[list[Any]]  # boolean: [cell][digit - 1] BoolVar


class CpSatBackend(Backend):
    """Sudoku as a CP-SAT model (AllDifferent or exactly-one Booleans)."""

    name: ClassVar[str] = "cpsat"
    summary: ClassVar[str] = (
        "OR-Tools CP-SAT, AllDifferent or Boolean exactly-one model, one worker"
    )
    requires: ClassVar[str] = "ortools"
    imports: ClassVar[str] = "ortools.sat.python.cp_model"
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "model",
            DEFAULT_MODEL,
            "alldiff (int var per cell) or boolean (exactly-one over x[cell,digit])",
            choices=MODELS,
        ),
        Option("presolve", True, "run CP-SAT's presolve (cp_model_presolve)", parse=parse_bool),
        Option("seed", 0, "CP-SAT random_seed (one worker, so counters repeat)", parse=int),
    )
    native_counters: ClassVar[tuple[str, ...]] = (
        "num_branches",
        "num_conflicts",
        "solver_wall_time",
        "solver_calls",
    )

    def encode(self, puzzle: Puzzle) -> CpSatModel:
        from ortools.sat.python import cp_model

        geo = puzzle.geometry
        n = geo.n
        model = cp_model.CpModel()
        cell_vars: list[Any] = []
        digit_lits: list[list[Any]] = []
        if self.config["model"] == "alldiff":
            for cell, d in enumerate(puzzle.cells):
                if d:
                    cell_vars.append(model.new_constant(d))
                else:
                    cell_vars.append(model.new_int_var(1, n, f"c{cell}"))
            for unit in geo.units:
                model.add_all_different([cell_vars[c] for c in unit])
        else:
            for cell, d in enumerate(puzzle.cells):
                lits = [model.new_bool_var(f"c{cell}d{digit}") for digit in range(1, n + 1)]
                if d:
                    model.add(lits[d - 1] == 1)
                model.add_exactly_one(lits)
                digit_lits.append(lits)
            for unit in geo.units:
                for i in range(n):
                    model.add_exactly_one([digit_lits[c][i] for c in unit])
        return CpSatModel(puzzle, self.config["model"], model, cell_vars, digit_lits)

    def solve(
        self, encoded: CpSatModel, limit: int = 1, time_limit: float | None = None
    ) -> SolveResult:
        from ortools.sat.python import cp_model

        model = encoded.model
        native: dict[str, int | float] = {
            "num_branches": 0,
            "num_conflicts": 0,
            "solver_wall_time": 0.0,
            "solver_calls": 0,
        }
        start = time.perf_counter()
        first: Grid | None = None
        found = 0
        status = Status.UNSAT
        while found < limit:
            solver = cp_model.CpSolver()
            params = solver.parameters
            params.num_workers = 1
            params.random_seed = self.config["seed"]
            params.cp_model_presolve = self.config["presolve"]
            remaining = None
            if time_limit is not None:
                remaining = time_limit - (time.perf_counter() - start)
                if remaining <= 0:
                    status = Status.TIMEOUT
                    break
                params.max_time_in_seconds = remaining
            code = solver.solve(model)
            name = solver.status_name(code)
            native["num_branches"] += solver.num_branches
            native["num_conflicts"] += solver.num_conflicts
            native["solver_wall_time"] += solver.wall_time
            native["solver_calls"] += 1
            if name == "MODEL_INVALID":
                raise BackendError(f"CP-SAT refused the model: {model.validate()}")
            status = translate_status(name, time_limit_hit=remaining is not None)
            if status is not Status.SOLVED:
                break
            grid = self._decode(encoded, solver)
            first = first or grid
            found += 1
            if found < limit:
                if model is encoded.model:  # leave the encoded model as built
                    model = model.clone()
                if not self._exclude(model, encoded, grid):
                    break  # no empty cell: the givens are the only solution
        if status in (Status.TIMEOUT, Status.UNKNOWN):
            message = f"CP-SAT status {status} after {found} solution(s)"
            return SolveResult(status, first, found, native=native, message=message)
        if not found:
            return SolveResult(Status.UNSAT, native=native)
        return SolveResult(Status.SOLVED, first, found, native=native)

    @staticmethod
    def _decode(encoded: CpSatModel, solver: Any) -> Grid:
        puzzle = encoded.puzzle
        if encoded.kind == "alldiff":
            return tuple(int(solver.value(v)) for v in encoded.cell_vars)
        grid = []
        geo = puzzle.geometry
        for cell, lits in enumerate(encoded.digit_lits):
            digits = [i + 1 for i, lit in enumerate(lits) if solver.boolean_value(lit)]
            if len(digits) != 1:
                raise BackendError(f"cell {geo.cell_name(cell)} decodes to digits {digits}")
            grid.append(digits[0])
        return tuple(grid)

    @staticmethod
    def _exclude(model: Any, encoded: CpSatModel, grid: Grid) -> bool:
        """Add "some empty cell differs from ``grid``" to ``model`` (a clone of the encoded one).

        Returns False when there is no empty cell. Variables are proto indices, so the
        encoded model's variables stand for the same variables in a clone.
        """
        empty = [c for c, d in enumerate(encoded.puzzle.cells) if not d]
        if not empty:
            return False
        if encoded.kind == "alldiff":
            differs = []
            for c in empty:
                lit = model.new_bool_var(f"differs{c}")
                model.add(encoded.cell_vars[c] != grid[c]).only_enforce_if(lit)
                differs.append(lit)
            model.add_bool_or(differs)
        else:
            model.add_bool_or([encoded.digit_lits[c][grid[c] - 1].Not() for c in empty])
        return True
