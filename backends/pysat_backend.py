"""The ``pysat`` backend: a CNF (:mod:`backends.engines.cnf`) solved by one of PySAT's SAT
engines.

``encode`` builds the CNF exactly as the ``pycosat`` backend does (options ``encoding`` and
``reduce``, same meaning, same defaults); ``solve`` loads it into the engine named by
``solver`` (``minisat22``, ``glucose4``, ``cadical195``...) and decodes the model. For a second
solution it adds a clause blocking the grid just found and solves again, incrementally, in the
same engine: what the engine learnt while finding the first grid is kept.

Time limit: the engines of the MiniSat, Glucose, Maple and MergeSat families stop when
interrupted. Each call first runs a slice of :data:`FIRST_SLICE` conflicts under PySAT's
conflict budget, with no thread: nearly every puzzle is decided there. A call that needs more
goes on without a budget while a ``threading.Timer`` calls ``interrupt()`` when
``time_limit`` has passed; the result is then TIMEOUT. (A timer on every call would add to
every solve the hand-offs between two threads, which wait for the scheduler.) Going on after
the slice is the same as a restart at that point, so the counters stay deterministic. PySAT
cannot interrupt CaDiCaL, so a CaDiCaL call runs until it ends or the harness kills its
worker (the row is TIMEOUT either way).

Counters: PySAT's ``accum_stats()`` (summed over every call, both solutions) goes in
``native`` under its own names, ``decisions``, ``conflicts``, ``propagations`` and
``restarts``, with the CNF's ``variables`` and ``clauses``. ``nodes``, ``guesses`` and
``backtracks`` stay ``None``: CDCL decisions and conflicts are not the search nodes defined
in :mod:`backends.base`.
"""

from __future__ import annotations

import threading
import time
from typing import Any, ClassVar

from backends.base import Option, SolveResult, Status
from backends.engines import cnf
from backends.engines.sat import (
    CNF_OPTIONS,
    SatBackend,
    translate_answer,
)

#: The engines offered: those whose PySAT wrapper supports ``solve_limited`` and reports
#: ``accum_stats()`` (Lingeling has no limited solve, Kissat no statistics).
ENGINES: tuple[str, ...] = (
    "minisat22",
    "glucose3",
    "glucose4",
    "glucose42",
    "cadical103",
    "cadical153",
    "cadical195",
    "maplechrono",
    "maplecm",
    "maplesat",
    "mergesat3",
)

#: Engines that PySAT can interrupt (measured: a timer stops each one on a pigeonhole
#: CNF that takes minutes; every CaDiCaL raises NotImplementedError on ``interrupt()``).
INTERRUPTIBLE: frozenset[str] = frozenset(e for e in ENGINES if not e.startswith("cadical"))

#: Conflicts an interruptible engine may spend before a timer is armed (a short slice of
#: MiniSat or Glucose on a hard CNF; top95's median puzzle needs under 20 conflicts).
FIRST_SLICE = 1000

#: PySAT's own default engine (``Solver()`` with no name is MiniSat 2.2).
DEFAULT_ENGINE = "minisat22"

#: The statistics ``accum_stats()`` returns, under PySAT's names.
STATS: tuple[str, ...] = ("decisions", "conflicts", "propagations", "restarts")


def translate_status(answer: Any, interrupted: bool) -> Status:
    """PySAT's answer as a Status: True SAT, False UNSAT, None stopped (TIMEOUT if we asked)."""
    return translate_answer(answer, interrupted, "PySAT")


class PysatBackend(SatBackend):
    """Sudoku as SAT, solved incrementally by a PySAT engine (MiniSat, Glucose, CaDiCaL...)."""

    name: ClassVar[str] = "pysat"
    summary: ClassVar[str] = (
        "CNF encoding (as pycosat) solved incrementally by a PySAT engine: minisat22, "
        "glucose4, cadical195..."
    )
    requires: ClassVar[str] = "python-sat"
    imports: ClassVar[str] = "pysat.solvers"
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "solver",
            DEFAULT_ENGINE,
            "PySAT engine; CaDiCaL cannot be interrupted (the harness kills it at the timeout)",
            choices=ENGINES,
        ),
        *CNF_OPTIONS,
    )
    native_counters: ClassVar[tuple[str, ...]] = (*STATS, "variables", "clauses")

    def count(
        self, encoded: cnf.Cnf, limit: int, deadline: float | None, native: dict[str, int | float]
    ) -> SolveResult:
        """Load the CNF into the engine and count models; PySAT's statistics into native."""
        from pysat.solvers import Solver

        engine = self.config["solver"]
        with Solver(name=engine, bootstrap_with=encoded.clauses) as solver:

            def solve_once() -> tuple[Status, Any]:
                status = self._solve_once(solver, deadline)
                return status, solver.get_model() if status is Status.SOLVED else None

            count = cnf.count_models(encoded, limit, solve_once, solver.add_clause)
            native.update({k: v for k, v in solver.accum_stats().items() if k in STATS})
        return count.result(native, engine)

    def _solve_once(self, solver: Any, deadline: float | None) -> Status:
        """One call of the engine: a budgeted slice, then the rest under a timer if needed."""
        if self.config["solver"] not in INTERRUPTIBLE:
            return translate_status(solver.solve(), False)
        solver.conf_budget(FIRST_SLICE)
        answer = solver.solve_limited()
        if answer is not None:
            return translate_status(answer, False)
        solver.conf_budget(-1)  # no budget from here: only the time limit stops it
        if deadline is None:
            return translate_status(solver.solve_limited(), False)
        fired = threading.Event()

        def stop() -> None:
            fired.set()
            solver.interrupt()

        timer = threading.Timer(max(deadline - time.perf_counter(), 0.0), stop)
        timer.daemon = True
        timer.start()
        try:
            answer = solver.solve_limited(expect_interrupt=True)
        finally:
            timer.cancel()
            timer.join()  # after this, stop() cannot touch the solver any more
        return translate_status(answer, fired.is_set())
