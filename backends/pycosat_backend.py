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

from backends.base import Option, SolveResult, Status, parse_non_negative_int
from backends.engines import cnf
from backends.engines.sat import CNF_OPTIONS, SatBackend
from backends.errors import UnknownStatusError


def translate_status(answer: Any) -> Status:
    """pycosat's answer as a Status: a list is a model (SOLVED), "UNSAT"/"UNKNOWN" are not."""
    if isinstance(answer, list):
        return Status.SOLVED
    if answer == "UNSAT":
        return Status.UNSAT
    if answer == "UNKNOWN":
        return Status.UNKNOWN
    raise UnknownStatusError(f"pycosat returned an unknown answer {answer!r}")


class PycosatBackend(SatBackend):
    """Sudoku as SAT, solved by PicoSAT (pycosat)."""

    name: ClassVar[str] = "pycosat"
    summary: ClassVar[str] = (
        "CNF encoding (minimal/efficient/extended, givens reduced) solved by PicoSAT"
    )
    requires: ClassVar[str] = "pycosat"
    imports: ClassVar[str] = "pycosat"
    options: ClassVar[tuple[Option, ...]] = (
        *CNF_OPTIONS,
        Option(
            "prop_limit",
            0,
            "PicoSAT propagation budget per call, 0 = unlimited (gives UNKNOWN when hit)",
            parse=parse_non_negative_int,
        ),
    )

    def count(
        self, encoded: cnf.Cnf, limit: int, deadline: float | None, native: dict[str, int | float]
    ) -> SolveResult:
        """Solve the CNF again for each model, with the clauses that forbid the models found;
        ``deadline`` is left to the harness (pycosat has no time limit)."""
        import pycosat

        prop_limit = self.config["prop_limit"]
        clauses = list(encoded.clauses)  # the blocking clauses go on this copy

        def solve_once() -> tuple[Status, Any]:
            answer = pycosat.solve(clauses, vars=encoded.nvars, prop_limit=prop_limit)
            status = translate_status(answer)
            return status, answer if status is Status.SOLVED else None

        count = cnf.count_models(encoded, limit, solve_once, clauses.append)
        return count.result(native, "PicoSAT", at=f"prop_limit={prop_limit}")
