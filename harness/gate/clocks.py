"""Which clock judges a backend's time: the one rule the gate and ``harness history`` share.

A results row holds three clocks for the solve phase: ``solve_s`` (wall time around the
call), ``solve_cpu_s`` (the CPU time of the worker process over the same call) and
``own_solve_s`` (the solver's own clock, when it reports one). On a loaded machine the
scheduler deschedules a solver: its wall time grows while its CPU time does not. So:

1. **CPU time** judges a backend whose work runs in the worker's own process: the
   built-ins, plugins and ``lib:`` solvers (a ``SPEC@REV`` twin is measured the same way,
   in the process of its tree);
2. **the solver's own clock** judges one whose work runs elsewhere (a ``cmd:`` solver, a
   process of its own that the worker's CPU time does not see), when it reports that clock;
3. **wall time** judges the rest: a ``cmd:`` solver without a clock of its own, a run that
   recorded no CPU time, and a solver that works on several threads, whose CPU time adds
   the threads up and exceeds its wall time (CP-SAT with several workers; seen in the rows:
   the median of CPU over wall above :data:`THREADED`).
"""

from __future__ import annotations

CPU, OWN, WALL = "solve_cpu_s", "own_solve_s", "solve_s"
#: The clocks in words, as tables and pages name them.
NAMES = {CPU: "CPU time", OWN: "the solver's own clock", WALL: "wall time"}
#: A median CPU time over wall time above this: the solver runs on several threads.
THREADED = 1.2


def judging_clock(spec: str, cpu_over_wall: float | None, reports_own: bool) -> str:
    """The column whose time judges backend ``spec`` (see the module): ``cpu_over_wall`` is
    the median over its answered solves of ``solve_cpu_s / solve_s`` (None when the rows
    hold no CPU time); ``reports_own``, whether its rows hold ``own_solve_s``."""
    if in_process(spec) and cpu_over_wall is not None:
        return WALL if cpu_over_wall > THREADED else CPU
    return OWN if reports_own else WALL


def in_process(spec: str) -> bool:
    """Whether backend ``spec``'s work runs in the worker's own process, where its CPU time
    is the solver's (every backend but a ``cmd:`` program)."""
    return not spec.startswith("cmd:")


def is_time(column: str) -> bool:
    """Whether a native statistic's column is a time (``..._s``, or its name says time), not
    a count of work."""
    return column.endswith("_s") or "time" in column
