"""The search loop: depth-first over copies of the state, two drivers, one node expansion.

Two drivers walk the same tree: :func:`iterative` (an explicit stack) and :func:`recursive`.
Both only ask :func:`search`'s node expansion for the next child, so their trees and counters
are identical by construction. The heuristics come as parameters (:class:`Heuristics`); see
:mod:`backends.engines.search.heuristics` and :mod:`backends.engines.search.propagation`.


Counting (see :mod:`backends.base`)
-----------------------------------
``nodes`` is the root plus one per value tried; a value that its inference refutes at once
still counts (and is a backtrack). A value the deadline stops before it is tried does not
count. ``guesses`` counts nodes whose chosen cell had more than one candidate.
``backtracks`` counts tried values that the search undoes before moving on: every refuted or
exhausted subtree, and, when counting to two, a subtree that held only one solution.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from backends.base import SearchOutcome, SolveResult, Status
from backends.engines.deadline import Deadline, after
from backends.engines.search.heuristics import ascending, mrv
from backends.engines.search.propagation import forward
from backends.engines.search.state import ROOT, Inference, Order, Select, Start, State
from backends.puzzle import Grid

#: A node expansion: the children of a state that its inference keeps, one at a time.
Expand = Callable[[State], Iterator[State]]
#: Walks the tree below a root state, depth first, by asking the expansion for children.
Driver = Callable[[Expand, State], None]


def iterative(expand: Expand, root: State) -> None:
    """Walk the tree below ``root`` depth first with an explicit stack (seed 002's form)."""
    stack = [expand(root)]
    while stack:
        for child in stack[-1]:
            stack.append(expand(child))
            break
        else:
            stack.pop()


def recursive(expand: Expand, root: State) -> None:
    """Walk the tree below ``root`` depth first by recursion (seed 000's form)."""
    for child in expand(root):
        recursive(expand, child)


class _Stop(Exception):
    """Unwinds a driver: the solution limit was reached, or the deadline passed."""


def search(
    start: Start,
    select: Select = mrv,
    order: Order = ascending,
    inference: Inference = forward,
    limit: int = 1,
    deadline: float | None = None,
    root: Inference | None = None,
    driver: Driver = iterative,
) -> SearchOutcome:
    """Depth-first search for up to ``limit`` solutions from ``start``.

    ``root`` is the inference run once at the root (default: ``inference``), e.g. singles
    before plain backtracking. ``driver`` walks the tree; the tree and the counters do not
    depend on it. Past ``deadline`` (a :func:`time.perf_counter` value, looked at before the
    first value), the search returns TIMEOUT with its counters and any solution in hand
    (counting to two, the first one may be). Each branch works on a copy of its parent's
    state, so nothing is ever undone.
    """
    if limit < 1:
        raise ValueError(f"limit must be 1 or more, got {limit!r}")
    t = start.tables
    flag, full, one = t.assigned, t.full, t.one
    two = one + one
    clock = Deadline(deadline)
    nodes, guesses, backtracks = 1, 0, 0
    solutions: list[Grid] = []
    timed_out = False

    def expand(cands: State) -> Iterator[State]:
        """The one node expansion: pick a cell, then yield each child its inference keeps."""
        nonlocal nodes, guesses, backtracks, timed_out
        cell = select(cands, t)
        if cell < 0:
            solutions.append(tuple((mask & full).bit_length() for mask in cands))
            if len(solutions) >= limit:
                raise _Stop
            return
        if cands[cell] >= two:  # two or more candidates
            guesses += 1
        for bit in order(cands, cell, t):
            if nodes >= clock.next and clock.passed(nodes):
                timed_out = True
                raise _Stop
            nodes += 1
            child = cands.copy()
            child[cell] = bit | flag
            if inference(child, cell, bit, t):
                yield child  # the driver explores the child's subtree before resuming here
            backtracks += 1  # refuted, exhausted, or (counting on) its solution is undone

    cands = list(start.cands)
    if min(cands) < one or not (root or inference)(cands, ROOT, 0, t):  # dead, or refuted
        return SearchOutcome(Status.UNSAT, (), nodes, guesses, backtracks)
    if driver is recursive:
        sys.setrecursionlimit(max(sys.getrecursionlimit(), t.ncells + 1000))
    with contextlib.suppress(_Stop):
        driver(expand, cands)
    status = Status.TIMEOUT if timed_out else Status.SOLVED if solutions else Status.UNSAT
    return SearchOutcome(status, tuple(solutions), nodes, guesses, backtracks)


@dataclass(frozen=True)
class Heuristics:
    """The functions one search runs with (see :func:`search` for each)."""

    select: Select = mrv
    order: Order = ascending
    inference: Inference = forward
    root: Inference | None = None
    driver: Driver = iterative


def solve(
    start: Start,
    limit: int = 1,
    time_limit: float | None = None,
    heuristics: Heuristics = Heuristics(),
) -> SolveResult:
    """:func:`search` as a backend's ``solve`` step: the deadline is ``time_limit`` from now."""
    h = heuristics
    deadline = after(time_limit)
    outcome = search(start, h.select, h.order, h.inference, limit, deadline, h.root, h.driver)
    message = (
        f"time limit {time_limit}s reached after {len(outcome.solutions)} solution(s)"
        if outcome.status is Status.TIMEOUT
        else ""
    )
    return outcome.result(message)
