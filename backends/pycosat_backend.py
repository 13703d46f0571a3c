"""The ``pycosat`` backend: a CNF (:mod:`backends.engines.cnf`) solved by PicoSAT via pycosat.

``encode`` builds the CNF; ``solve`` runs PicoSAT and decodes the model. For more than one
solution it solves again with a blocking clause that forbids the grid just found. PicoSAT
reports no search statistics through pycosat, so ``nodes``, ``guesses`` and ``backtracks``
stay ``None``; ``native`` carries the CNF's ``variables`` and ``clauses``.

pycosat has no time limit. ``time_limit`` is left to the harness; the ``prop_limit`` option
(PicoSAT's propagation budget, 0 = none) makes PicoSAT give up with ``"UNKNOWN"``.

Why ``pycosat_backend.py`` and not ``pycosat.py`` like the other backends (named after their
registry key): a module named like the library it wraps reads as that library (``import
pycosat`` inside ``pycosat.py``), and shadows it whenever ``backends/`` itself is on
``sys.path`` (a script run from inside the folder). A backend module whose name would equal
its library's import name takes the ``_backend`` suffix; the registered name stays
``pycosat``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from backends.base import (
    Backend,
    Option,
    SolveResult,
    Status,
    parse_bool,
    parse_non_negative_int,
)
from backends.engines import cnf
from backends.errors import UnknownStatusError
from backends.puzzle import Puzzle

#: Defaults chosen by measuring with benchmarks/bench_pycosat.py. reduce=true is 2.8 to 5.8x
#: faster (encode + solve, median) than reduce=false on top95 and easy50 under every encoding.
#: With reduce, the three encodings are within 1.4x of each other on 9x9, extended having the
#: smallest worst case, while on 25x25 puzzles extended solved in 39-106 ms where minimal
#: took 1.0-5.9 s and efficient 1.4-17 s.
DEFAULT_ENCODING = "extended"
DEFAULT_REDUCE = True


def translate_status(answer: Any) -> Status:
    """pycosat's answer as a Status: a list is a model (SOLVED), "UNSAT"/"UNKNOWN" are not."""
    if isinstance(answer, list):
        return Status.SOLVED
    if answer == "UNSAT":
        return Status.UNSAT
    if answer == "UNKNOWN":
        return Status.UNKNOWN
    raise UnknownStatusError(f"pycosat returned an unknown answer {answer!r}")


class PycosatBackend(Backend):
    """Sudoku as SAT, solved by PicoSAT (pycosat)."""

    name: ClassVar[str] = "pycosat"
    summary: ClassVar[str] = (
        "CNF encoding (minimal/efficient/extended, givens reduced) solved by PicoSAT"
    )
    requires: ClassVar[str] = "pycosat"
    imports: ClassVar[str] = "pycosat"
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "encoding",
            DEFAULT_ENCODING,
            "CNF encoding: minimal, efficient or extended (Lynce & Ouaknine 2006)",
            choices=cnf.ENCODINGS,
        ),
        Option(
            "reduce",
            DEFAULT_REDUCE,
            "drop the variables and clauses the givens decide (Kwon & Jain 2006)",
            parse=parse_bool,
        ),
        Option(
            "prop_limit",
            0,
            "PicoSAT propagation budget per call, 0 = unlimited (gives UNKNOWN when hit)",
            parse=parse_non_negative_int,
        ),
    )
    native_counters: ClassVar[tuple[str, ...]] = ("variables", "clauses")

    def encode(self, puzzle: Puzzle) -> cnf.Cnf:
        return cnf.encode(puzzle, self.config["encoding"], self.config["reduce"])

    def solve(
        self, encoded: cnf.Cnf, limit: int = 1, time_limit: float | None = None
    ) -> SolveResult:
        import pycosat

        native = {"variables": encoded.nvars, "clauses": encoded.nclauses}
        if encoded.contradiction:
            return SolveResult(Status.UNSAT, native=native, message=encoded.contradiction)
        prop_limit = self.config["prop_limit"]
        clauses = list(encoded.clauses)  # the blocking clauses go on this copy

        def solve_once() -> tuple[Status, Any]:
            answer = pycosat.solve(clauses, vars=encoded.nvars, prop_limit=prop_limit)
            status = translate_status(answer)
            return status, answer if status is Status.SOLVED else None

        count = cnf.count_models(encoded, limit, solve_once, clauses.append)
        return count.result(native, "PicoSAT", at=f"prop_limit={prop_limit}")
