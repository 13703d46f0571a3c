"""The backend contract: what a backend is, what it returns, and what its counters mean.

A backend is a class with three steps, after benchopt's ``BaseSolver``:

1. ``__init__(**options)`` -- **untimed.** Validates options (declared in ``options``).
2. :meth:`Backend.encode` -- **timed as the ``encode`` phase.** Turns a :class:`Puzzle` into
   whatever the solver works on: a CNF, a CP-SAT model, bitmask candidate sets.
3. :meth:`Backend.solve` -- **timed as the ``solve`` phase.** Searches, decodes the answer and
   returns a :class:`SolveResult`. Decoding is part of solving.

A backend whose search is one call into native code may also define ``solve_call(encoded,
limit)`` and ``solve_decode(raw, encoded)`` (``solve`` is then ``solve_decode(solve_call(...))``):
the harness times the call alone as the ``solve`` phase, and reads its answer untimed, so
the phase is the solver's work, not the reading of its buffers (see :mod:`backends.lib`).

The harness then checks the answer with its own independent checker (the ``check`` phase),
never trusting the backend. A backend knows nothing about the harness.

Effort counters
---------------
Every backend fills the counters it can compute honestly and leaves the others ``None``
(an empty CSV cell). ``None`` means "not measured", never zero.

``nodes``
    Calls into the search: the root call plus one for each value tried (assigned) in a
    branch. This is how Norvig and the AC-3 seed count. A puzzle that propagation alone
    solves scores 1. A value whose assignment is refuted immediately (a peer's candidates
    become empty) still counts, since the search tried it.
``guesses``
    Branch points: search nodes that chose a cell with more than one candidate left.
``backtracks``
    Dead ends: tried values whose subtree failed (contradiction, or exhausted without the
    wanted solutions), i.e. every time the search undoes an assignment and moves on.

Library statistics keep their native names (``num_branches``, ``num_conflicts``,
``variables``, ``clauses``...) in :attr:`SolveResult.native`; the harness writes each as its
own column. None may take the name of one of the row's own columns (:data:`ROW_COLUMNS`).

Statuses
--------
A backend returns SOLVED, UNSAT, TIMEOUT or UNKNOWN. The harness alone assigns WRONG (the
checker refused the answer), ERROR (an exception or a dead worker), MEMOUT and UNAVAILABLE.
Native sentinels (pycosat's ``"UNSAT"``, CP-SAT's ``OPTIMAL``) are translated inside the
backend module, by a function each backend module names ``translate_status``; an unknown
native status raises :class:`UnknownStatusError`.
"""

from __future__ import annotations

import enum
import importlib
import math
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from backends.errors import BackendError, BackendOptionError
from backends.puzzle import Grid, Puzzle


class Status(enum.StrEnum):
    """How one solve ended."""

    SOLVED = "SOLVED"  # at least one solution found and returned
    UNSAT = "UNSAT"  # proven: no solution
    TIMEOUT = "TIMEOUT"  # the time limit ran out first
    UNKNOWN = "UNKNOWN"  # the solver gave up without an answer (e.g. a propagation budget)
    WRONG = "WRONG"  # harness only: the independent checker refused the answer
    ERROR = "ERROR"  # harness only: the backend raised, or its worker died
    MEMOUT = "MEMOUT"  # harness only: the worker went over the memory limit
    UNAVAILABLE = "UNAVAILABLE"  # harness only: not installed here, or the grid is too large


#: Two members looked up once: ``Status.SOLVED`` goes through the enum class's ``__getattr__``
#: hook on each use (Python 3.11), and :class:`SolveResult` checks them on every solve.
_SOLVED, _UNSAT = Status.SOLVED, Status.UNSAT

#: The counters every backend reports or leaves None, in column order.
COUNTERS: tuple[str, ...] = ("nodes", "guesses", "backtracks")

#: The harness's own row columns (its results schema, ``harness/results``). A native statistic
#: never takes one of these names: a ``cmd:`` solver's statistic so named becomes
#: ``native_<name>``, and a plugin that declares one in ``native_counters`` is refused.
ROW_COLUMNS: frozenset[str] = frozenset(
    {
        *("dataset", "line", "puzzle", "size", "givens", "backend", "repeat", "limit", "jobs"),
        *("host", "status", "solutions", "solution", "message", *COUNTERS),
        *("encode_s", "solve_s", "encode_cpu_s", "solve_cpu_s", "own_solve_s", "check_s"),
        "wall_s",
        "peak_rss_mib",
    }
)


@dataclass(frozen=True)
class SolveResult:
    """What :meth:`Backend.solve` returns. Frozen; picklable.

    ``solution`` is the first solution found (digits ``1..n``, row-major) or ``None``.
    ``solutions_found`` counts solutions found under the limit: with limit 2, a value of 2
    means "at least two". ``nodes``, ``guesses`` and ``backtracks`` are defined in the module
    docstring; each may be ``None`` when the backend cannot measure it. ``native`` holds a
    library's own statistics under their native names. ``own_solve_s`` is the solver's own
    clock for this solve, seconds, when it keeps one (a ``cmd:`` or ``lib:`` solver).
    """

    status: Status
    solution: Grid | None = None
    solutions_found: int = 0
    nodes: int | None = None
    guesses: int | None = None
    backtracks: int | None = None
    native: Mapping[str, int | float] = field(default_factory=dict)
    message: str = ""
    own_solve_s: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.status, Status):
            raise BackendError(f"status must be a Status, got {self.status!r}")
        if self.status is _SOLVED and (self.solution is None or self.solutions_found < 1):
            raise BackendError(
                f"SOLVED needs a solution and solutions_found >= 1, "
                f"got solutions_found={self.solutions_found!r}"
            )
        if self.status is _UNSAT and (self.solution is not None or self.solutions_found):
            raise BackendError(
                f"UNSAT cannot carry a solution, got solutions_found={self.solutions_found!r}"
            )
        for name in COUNTERS:
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 0):
                raise BackendError(f"counter {name} must be a non-negative int, got {value!r}")
        own = self.own_solve_s
        if own is not None and not (isinstance(own, int | float) and 0 <= own < math.inf):
            raise BackendError(f"own_solve_s must be a non-negative number of seconds, got {own!r}")


@dataclass(frozen=True)
class SearchOutcome:
    """How one counting search ended: its status, the solutions found (up to the limit) and
    its counters. The search engines return it; :meth:`result` makes the contract's record."""

    status: Status
    solutions: Sequence[Grid]
    nodes: int
    guesses: int
    backtracks: int

    def result(
        self, message: str = "", native: Mapping[str, int | float] | None = None
    ) -> SolveResult:
        """The outcome as a :class:`SolveResult`: the first solution, the count, the counters."""
        return SolveResult(
            status=self.status,
            solution=self.solutions[0] if self.solutions else None,
            solutions_found=len(self.solutions),
            nodes=self.nodes,
            guesses=self.guesses,
            backtracks=self.backtracks,
            native=native or {},
            message=message,
        )


def install_reason(module: str, package: str) -> str | None:
    """What :meth:`Backend.unavailable_reason` says by default: ``None`` when ``module``
    imports, else 'install ``package``'."""
    try:
        importlib.import_module(module)
    except ImportError:
        return f"install {package}"
    return None


def parse_non_negative_int(text: str) -> int:
    """Read an option's non-negative integer value."""
    value = int(text)
    if value < 0:
        raise ValueError(f"expected a non-negative integer, got {value}")
    return value


def parse_bool(text: str | bool) -> bool:
    """Read an option's boolean value: true/false, yes/no, on/off, 1/0."""
    if isinstance(text, bool):
        return text
    lowered = str(text).strip().lower()
    if lowered in {"true", "yes", "on", "1"}:
        return True
    if lowered in {"false", "no", "off", "0"}:
        return False
    raise BackendOptionError(f"expected true or false, got {text!r}")


@dataclass(frozen=True)
class Option:
    """One backend option, as ``--backend NAME:option=value`` sets it."""

    name: str
    default: Any
    help: str
    choices: tuple[str, ...] | None = None
    parse: Callable[[str], Any] = str

    def convert(self, raw: Any) -> Any:
        """The option's value from CLI text (or an already-typed value)."""
        if isinstance(raw, str):
            try:
                value = self.parse(raw)
            except (ValueError, BackendOptionError) as exc:
                raise BackendOptionError(f"option {self.name}={raw!r}: {exc}") from None
        else:
            value = raw
        if self.choices is not None and value not in self.choices:
            raise BackendOptionError(
                f"option {self.name}={raw!r} is not one of {', '.join(self.choices)}"
            )
        return value


class Backend(ABC):
    """One way of solving Sudoku. Subclass it in its own module under ``backends/``.

    Class attributes:

    ``name``             registry key, as typed after ``--backend``.
    ``summary``          one line for ``harness backends``.
    ``requires``         what to install when the backend is unavailable, e.g. ``"pycosat"``.
    ``imports``          the module whose import shows that ``requires`` is installed; the
                         default :meth:`unavailable_reason` tries it (empty: nothing to
                         import).
    ``options``          the :class:`Option` s it takes.
    ``deterministic``    True when the same puzzle and options give the same counters
                         every run (the regression gate compares such counters exactly).
    ``native_counters``  names of the library statistics it puts in ``SolveResult.native``.
    ``max_box``          the largest box side it supports (grids up to ``max_box**2``).
    ``slow``             True when a typical 9x9 solve takes tens of milliseconds, ten times
                         the fast backends or more: ``harness backends`` marks it.
    ``in_process``       True when the solve's work runs in the calling process, so that its
                         CPU time measures it; False for a solver that works in a process of
                         its own (``cmd:``), whose rows then leave ``solve_cpu_s`` empty.
    """

    name: ClassVar[str]
    summary: ClassVar[str]
    requires: ClassVar[str] = ""
    imports: ClassVar[str] = ""
    options: ClassVar[tuple[Option, ...]] = ()
    deterministic: ClassVar[bool] = True
    native_counters: ClassVar[tuple[str, ...]] = ()
    max_box: ClassVar[int] = 5
    slow: ClassVar[bool] = False
    in_process: ClassVar[bool] = True

    def __init__(self, **options: Any) -> None:
        known = {opt.name: opt for opt in self.options}
        unknown = sorted(set(options) - set(known))
        if unknown:
            valid = ", ".join(known) or "none"
            raise BackendOptionError(
                f"backend {self.name!r} has no option {unknown[0]!r}; valid options: {valid}"
            )
        self.config: dict[str, Any] = {
            name: opt.convert(options[name]) if name in options else opt.default
            for name, opt in known.items()
        }

    @classmethod
    def unavailable_reason(cls) -> str | None:
        """Why the backend cannot run here (e.g. 'install pycosat'), or None when it can.

        By default, whether the module ``imports`` names imports: a backend that needs one
        package sets ``requires`` and ``imports`` and does not override this.
        """
        return install_reason(cls.imports, cls.requires) if cls.imports else None

    @classmethod
    def available(cls) -> str | None:
        """The deprecated name of :meth:`unavailable_reason` (it answers None when the backend
        *is* available); it still works, with a DeprecationWarning. A plugin that overrides
        it is still asked through it (:func:`backends.availability`)."""
        warnings.warn(
            "Backend.available() is deprecated: call unavailable_reason()",
            DeprecationWarning,
            stacklevel=2,
        )
        return cls.unavailable_reason()

    @property
    def spec(self) -> str:
        """Canonical name with its non-default options, e.g. ``ac3:select=B``."""
        changed = [
            f"{opt.name}={_show(self.config[opt.name])}"
            for opt in self.options
            if self.config[opt.name] != opt.default
        ]
        return f"{self.name}:{','.join(changed)}" if changed else self.name

    def encode(self, puzzle: Puzzle) -> Any:
        """Build the solver's input. Timed as the ``encode`` phase. Default: the puzzle itself."""
        return puzzle

    @abstractmethod
    def solve(self, encoded: Any, limit: int = 1, time_limit: float | None = None) -> SolveResult:
        """Search for up to ``limit`` solutions (1 = find one, 2 = prove uniqueness).

        Timed as the ``solve`` phase, decoding included. ``time_limit`` (seconds) is advisory:
        a backend may stop early and return TIMEOUT, but the harness enforces the limit from
        outside the worker process whether it does or not.
        """


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
