"""SAT backends whose solver keeps its state between calls (``pysat``, ``cryptosat``).

:class:`IncrementalSatBackend` is their shared shape: ``encode`` builds the project's CNF
(:mod:`backends.cnf`, options ``encoding`` and ``reduce`` as the ``pycosat`` backend has
them); ``solve`` answers a contradiction found while encoding, then hands the CNF to the
subclass's :meth:`~IncrementalSatBackend.count`, which loads it into its solver and counts
models with :func:`count_models`: solve, decode the model, add the clause that forbids that
grid, solve again. No solver is imported here.
"""

from __future__ import annotations

import time
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from backends.base import Backend, Option, SolveResult, Status
from backends.engines import cnf
from backends.errors import UnknownStatusError
from backends.puzzle import Grid, Puzzle
from backends.pycosat_backend import PycosatBackend

#: The CNF options, shared with the pycosat backend (same encodings, same defaults).
CNF_OPTIONS: tuple[Option, ...] = tuple(
    opt for opt in PycosatBackend.options if opt.name in ("encoding", "reduce")
)

#: One call of the solver: its translated status, and the model (signed literals) if SOLVED.
SolveOnce = Callable[[], tuple[Status, Sequence[int] | None]]


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


@dataclass(frozen=True)
class Count:
    """How a count ended: the last call's status, the first grid, the models found."""

    status: Status
    first: Grid | None
    found: int

    def result(self, native: Mapping[str, int | float], engine: str) -> SolveResult:
        """The count as the contract's result; TIMEOUT and UNKNOWN say how far it got."""
        if self.status in (Status.TIMEOUT, Status.UNKNOWN):
            message = f"{engine} stopped after {self.found} solution(s)"
            return SolveResult(self.status, self.first, self.found, native=native, message=message)
        if not self.found:
            return SolveResult(Status.UNSAT, native=native)
        return SolveResult(Status.SOLVED, self.first, self.found, native=native)


def count_models(
    encoded: cnf.Cnf, limit: int, solve_once: SolveOnce, add_clause: Callable[[list[int]], None]
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
        first = first or cnf.decode(encoded, model)
        found += 1
        block = cnf.blocking_clause(model)
        if not block:  # nothing left to choose: this grid is the only one
            break
        add_clause(block)
    return Count(status, first, found)


class IncrementalSatBackend(Backend):
    """A CNF solved by one incremental solver per puzzle; subclasses write :meth:`count`."""

    options: ClassVar[tuple[Option, ...]] = CNF_OPTIONS
    native_counters: ClassVar[tuple[str, ...]] = ("variables", "clauses")

    def encode(self, puzzle: Puzzle) -> cnf.Cnf:
        """The CNF (:func:`backends.cnf.encode`); the solver is loaded in :meth:`solve`."""
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
        :func:`count_models`), stopping at ``deadline`` (a ``perf_counter`` value) where the
        solver can; add the solver's statistics to ``native``."""
