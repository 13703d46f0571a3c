"""The shape every SAT backend shares (``pycosat``, ``pysat``, ``cryptosat``).

:class:`SatBackend`: ``encode`` builds the project's CNF (:mod:`backends.engines.cnf`, options
``encoding`` and ``reduce``, :data:`CNF_OPTIONS`); ``solve`` answers a contradiction found
while encoding, then hands the CNF to the subclass's :meth:`~SatBackend.count`, which loads it
into its solver and counts models with :func:`backends.engines.cnf.count_models`: solve,
decode the model, add the clause that forbids that grid, solve again (in the same solver when
it keeps its state between calls, as PySAT's and CryptoMiniSat's do). No solver is imported
here.
"""

from __future__ import annotations

import time
from abc import abstractmethod
from typing import ClassVar

from backends.base import Backend, Option, SolveResult, Status, parse_bool
from backends.engines import cnf
from backends.errors import UnknownStatusError
from backends.puzzle import Puzzle

#: Defaults chosen by measuring with benchmarks/bench_pycosat.py (figures in
#: docs/benchmarks.md): reduce=true was faster than reduce=false under every encoding, and
#: with it extended had the smallest worst case on 9x9 and was far ahead on 25x25.
DEFAULT_ENCODING = "extended"
DEFAULT_REDUCE = True

#: The CNF options every SAT backend takes (same encodings, same defaults).
CNF_OPTIONS: tuple[Option, ...] = (
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
)


def translate_answer(answer: object, stopped: bool, solver: str) -> Status:
    """The answer of a SAT call as PySAT and pycryptosat give it: True SAT, False UNSAT, None
    stopped (TIMEOUT when ``stopped`` says the time limit did it, else UNKNOWN)."""
    if answer is True:
        return Status.SOLVED
    if answer is False:
        return Status.UNSAT
    if answer is None:
        return Status.TIMEOUT if stopped else Status.UNKNOWN
    raise UnknownStatusError(f"{solver} returned an unknown answer {answer!r}")


class SatBackend(Backend):
    """A CNF solved by a SAT solver; subclasses write :meth:`count`."""

    options: ClassVar[tuple[Option, ...]] = CNF_OPTIONS
    native_counters: ClassVar[tuple[str, ...]] = ("variables", "clauses")

    def encode(self, puzzle: Puzzle) -> cnf.Cnf:
        """The CNF (:func:`backends.engines.cnf.encode`); the solver is loaded in :meth:`solve`."""
        return cnf.encode(puzzle, self.config["encoding"], self.config["reduce"])

    def solve(
        self, encoded: cnf.Cnf, limit: int = 1, time_limit: float | None = None
    ) -> SolveResult:
        """Load the CNF, solve, block the grid, solve again (limit 2); decoding included."""
        native: dict[str, int | float] = {"variables": encoded.nvars, "clauses": encoded.nclauses}
        if encoded.contradiction:
            return SolveResult(Status.UNSAT, native=native, message=encoded.contradiction)
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        return self.count(encoded, limit, deadline, native)

    @abstractmethod
    def count(
        self, encoded: cnf.Cnf, limit: int, deadline: float | None, native: dict[str, int | float]
    ) -> SolveResult:
        """Load ``encoded`` into a fresh solver and count up to ``limit`` models (use
        :func:`backends.engines.cnf.count_models`), stopping at ``deadline`` (a
        ``perf_counter`` value) where the solver can; add the solver's statistics to
        ``native``."""
