"""The ``cryptosat`` backend: a CNF (:mod:`backends.engines.cnf`) solved by CryptoMiniSat
(pycryptosat).

``encode`` builds the CNF as the ``pycosat`` backend does (options ``encoding`` and ``reduce``,
same defaults); ``solve`` loads it into one single-threaded CryptoMiniSat solver and, for a
second solution, adds a clause blocking the grid found and solves again in the same solver.

CryptoMiniSat is slow here, and marked ``slow``: on Norvig's top95 its median solve was many
times PicoSAT's (``pycosat``) on the same CNF (docs/benchmarks.md). pycryptosat exposes no
statistics to say where that time goes.

CryptoMiniSat takes a time limit per call: ``time_limit`` is passed on (what is left of it
for the second call), and a call it cuts short answers ``None``, which is TIMEOUT. pycryptosat
reports no search statistics, so ``nodes``, ``guesses`` and ``backtracks`` stay ``None`` and
``native`` carries the CNF's ``variables`` and ``clauses``.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from backends.base import SolveResult, Status
from backends.engines import cnf
from backends.engines.sat import SatBackend, translate_answer


def translate_status(answer: Any, limited: bool) -> Status:
    """CryptoMiniSat's answer: True SAT, False UNSAT, None stopped (TIMEOUT under a limit)."""
    return translate_answer(answer, limited, "CryptoMiniSat")


def model_literals(values: Any, nvars: int) -> list[int]:
    """pycryptosat's model (a tuple indexed by variable, ``None`` first) as signed literals."""
    return [v if values[v] else -v for v in range(1, nvars + 1)]


class CryptosatBackend(SatBackend):
    """Sudoku as SAT, solved incrementally by CryptoMiniSat (pycryptosat), one thread."""

    name: ClassVar[str] = "cryptosat"
    summary: ClassVar[str] = "CNF encoding (as pycosat) solved incrementally by CryptoMiniSat"
    requires: ClassVar[str] = "pycryptosat"
    imports: ClassVar[str] = "pycryptosat"
    slow: ClassVar[bool] = True

    def count(
        self, encoded: cnf.Cnf, limit: int, deadline: float | None, native: dict[str, int | float]
    ) -> SolveResult:
        """Load the CNF into one CryptoMiniSat solver and count models."""
        from pycryptosat import Solver

        solver = Solver(threads=1)
        solver.add_clauses(encoded.clauses)

        def solve_once() -> tuple[Status, list[int] | None]:
            if deadline is None:
                answer, values = solver.solve()
            else:
                answer, values = solver.solve(time_limit=max(deadline - time.perf_counter(), 1e-3))
            status = translate_status(answer, deadline is not None)
            model = model_literals(values, encoded.nvars) if status is Status.SOLVED else None
            return status, model

        return cnf.count_models(encoded, limit, solve_once, solver.add_clause).result(
            native, "CryptoMiniSat"
        )
