"""TEMPLATE: the file to copy when you write a backend (after CPMpy's ``TEMPLATE.py``).

It is a complete, working backend (depth-first search on bitmask candidates, fewest
candidates first, forward checking), so you can run it before changing anything, and every
method says what the harness times, what it passes in, and what may be ``None``.
docs/writing-a-backend.md walks through the same contract.

To use it:

1. Copy this file: ``backends/<yourname>.py`` for a built-in (``<yourname>_backend.py`` when
   ``<yourname>`` is also the module name of the library you wrap: see the naming rule in
   ``backends/__init__.py``), or a module of your own package for a plugin. Rename the class
   and set ``name``, ``summary``, ``requires``, ``imports``, ``options``.
2. Replace :meth:`TemplateBackend.encode` and :meth:`TemplateBackend.solve` with your solver.
   Import a third-party package inside the methods (never at the top of the module), so a
   missing package makes the backend "unavailable, install X" instead of breaking the harness.
3. Register it. Built-in: add ``"yourname": "backends.yourname:YourBackend"`` to ``REGISTRY``
   in ``backends/__init__.py``. Plugin: declare it in your ``pyproject.toml``::

       [project.entry-points."sudoku_harness.backends"]
       yourname = "yourpackage.module:YourBackend"

   The entry point's name must equal the class's ``name``: worker processes find the backend
   again by that name.
4. Check it: ``harness backends`` lists it; ``harness run -b yourname datasets/hard95.txt``
   runs it with every answer checked; tests/test_contract.py runs the contract suite on every
   built-in (a plugin can run the same checks, see tests/test_plugins.py).

This module is not registered: it is a file to copy, tested as such in tests/test_plugins.py.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import ClassVar

from backends.base import Backend, Option, SolveResult, Status
from backends.puzzle import Grid, Puzzle


@dataclass(frozen=True)
class Encoded:
    """What :meth:`TemplateBackend.encode` returns and :meth:`TemplateBackend.solve` takes.

    Anything your solver works on: a CNF, a model object, arrays. It stays inside the worker
    process (it is never pickled), so it may hold a third-party object. Keep it unchanged by
    :meth:`~TemplateBackend.solve`, or rebuild what solve used up: the same encoding may be
    solved twice.
    """

    puzzle: Puzzle
    candidates: tuple[int, ...]  # per cell: bit d-1 set while digit d is possible; 0 = dead
    consistent: bool  # False when the givens already clash


class TemplateBackend(Backend):
    """Depth-first search, fewest candidates first, forward checking (a template to copy)."""

    #: The name typed after ``--backend``; a plugin's entry point must carry the same name.
    name: ClassVar[str] = "template"
    #: One line for ``harness backends``.
    summary: ClassVar[str] = "template to copy: depth-first, fewest candidates, forward checking"
    #: What to install when the backend cannot run here (the pip name); "" when nothing is
    #: needed.
    requires: ClassVar[str] = ""
    #: The module whose import shows that ``requires`` is installed, e.g. ``"pycosat"``: with
    #: it set, the inherited :meth:`~backends.base.Backend.unavailable_reason` returns "install
    #: <requires>" when that import fails, and None when it works, so most backends write no
    #: check of their own. "" when nothing is needed, as here. A check that an import cannot
    #: make (a library version, a licence) overrides the classmethod ``unavailable_reason()``
    #: (untimed), returning the reason or None.
    imports: ClassVar[str] = ""
    #: The options ``--backend template:order=descending`` may set. ``Backend.__init__`` checks
    #: names and values (``choices``, ``parse``) and puts the values in ``self.config``; an
    #: option left at its default does not appear in the backend's spec.
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "order",
            "ascending",
            "order in which a cell's digits are tried",
            choices=("ascending", "descending"),
        ),
    )
    #: True when the same puzzle and options always give the same counters: the regression
    #: gate then compares them exactly. Say False for a randomised or multi-threaded solver.
    deterministic: ClassVar[bool] = True
    #: The names of the statistics :meth:`solve` puts in ``SolveResult.native``, each a CSV
    #: column of its own. Use your library's own names (``conflicts``, ``num_branches``).
    native_counters: ClassVar[tuple[str, ...]] = ("max_depth",)
    #: The largest box side supported: 3 = up to 9x9, 4 = 16x16, 5 = 25x25. Larger puzzles
    #: are recorded UNAVAILABLE without running. Claim only what you have measured.
    max_box: ClassVar[int] = 3

    # ``__init__(**options)`` is inherited: untimed, it validates the options into
    # ``self.config``. Override it only to prepare option-dependent tables, and call super().

    def encode(self, puzzle: Puzzle) -> Encoded:
        """Build what the solver works on. **Timed as the encode phase** (``encode_s``).

        ``puzzle.cells`` holds the digits row-major, 0 for empty; ``puzzle.box`` is the box
        side and ``puzzle.geometry`` has the units and peers. Raise nothing for a puzzle with
        clashing givens: record it (here ``consistent=False``) and return UNSAT from solve.
        """
        geo = puzzle.geometry
        full = (1 << puzzle.n) - 1
        candidates = [full if d == 0 else 1 << (d - 1) for d in puzzle.cells]
        consistent = True
        for cell, digit in enumerate(puzzle.cells):
            if digit:
                for peer in geo.peers[cell]:
                    candidates[peer] &= ~(1 << (digit - 1))
                    consistent = consistent and puzzle.cells[peer] != digit
        return Encoded(puzzle, tuple(candidates), consistent)

    def solve(
        self, encoded: Encoded, limit: int = 1, time_limit: float | None = None
    ) -> SolveResult:
        """Search for up to ``limit`` solutions. **Timed as the solve phase** (``solve_s``),
        decoding the answer included.

        ``limit`` is 1 (find one) or 2 (find a second one, to prove uniqueness).
        ``time_limit`` is the number of seconds left for this solve, or ``None``. Stopping in
        time is advisory: return TIMEOUT (with the counters so far) when you can; the
        harness kills the worker a little after the limit either way.

        Return a :class:`SolveResult`: ``status`` SOLVED, UNSAT, TIMEOUT or UNKNOWN (translate
        your library's statuses here; raise ``UnknownStatusError`` for one you do not know);
        ``solution`` the first grid found (digits ``1..n``, row-major) or ``None``;
        ``solutions_found`` up to ``limit``. Counters (see :mod:`backends.base`): ``nodes``,
        ``guesses``, ``backtracks`` follow the contract's definitions, and are ``None`` when
        your solver cannot count them that way, never an invented 0. ``native`` holds your
        library's own statistics under its own names. The harness checks every answer itself.
        """
        if not encoded.consistent:
            return SolveResult(Status.UNSAT, message="the givens repeat a digit in a unit")
        search = _Search(encoded, limit, time_limit, self.config["order"] == "descending")
        status = search.run()
        solutions = search.solutions
        return SolveResult(
            status,
            solution=solutions[0] if solutions else None,
            solutions_found=len(solutions),
            nodes=search.nodes,
            guesses=search.guesses,
            backtracks=search.backtracks,
            native={"max_depth": search.max_depth},
        )


class _Search:
    """The template's search, kept apart from the contract: replace it with your solver."""

    def __init__(self, encoded: Encoded, limit: int, time_limit: float | None, descending: bool):
        self.puzzle = encoded.puzzle
        self.peers = encoded.puzzle.geometry.peers
        self.start = list(encoded.candidates)
        self.limit = limit
        self.deadline = None if time_limit is None else time.perf_counter() + time_limit
        self.digits = range(self.puzzle.n, 0, -1) if descending else range(1, self.puzzle.n + 1)
        self.solutions: list[Grid] = []
        self.nodes = self.guesses = self.backtracks = self.max_depth = 0
        self.timed_out = False

    def run(self) -> Status:
        self.nodes = 1  # the root call
        grid = list(self.puzzle.cells)
        self._visit(self.start, grid, {c for c, d in enumerate(grid) if not d}, 0)
        if self.timed_out:
            return Status.TIMEOUT
        return Status.SOLVED if self.solutions else Status.UNSAT

    def _visit(self, cands: list[int], grid: list[int], empty: set[int], depth: int) -> bool:
        """Depth-first below this state; True once the search must stop (limit or clock)."""
        self.max_depth = max(self.max_depth, depth)
        if not empty:
            self.solutions.append(tuple(grid))
            return len(self.solutions) >= self.limit
        cell = min(empty, key=lambda c: (cands[c].bit_count(), c))
        if cands[cell].bit_count() > 1:
            self.guesses += 1
        for digit in self.digits:
            bit = 1 << (digit - 1)
            if not cands[cell] & bit:
                continue
            if self.deadline is not None and time.perf_counter() > self.deadline:
                self.timed_out = True
                return True
            self.nodes += 1
            child = cands.copy()
            child[cell] = bit
            alive = True  # forward checking: no peer may be left without a candidate
            for peer in self.peers[cell]:
                child[peer] &= ~bit
                alive = alive and child[peer] != 0
            grid[cell] = digit
            if alive and self._visit(child, grid, empty - {cell}, depth + 1):
                return True
            grid[cell] = 0
            self.backtracks += 1
        return False
