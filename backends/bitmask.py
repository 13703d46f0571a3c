"""The ``bitmask`` backend: Norvig's rules and fewest-candidates search, made fast in CPython.

The algorithm of ``norvig`` (naked and hidden singles to a fixpoint after every assignment,
then the first cell with the fewest candidates, its digits tried in ascending order), plus
locked candidates (pointing and claiming) at the root by default, on a state laid out for
the interpreter rather than for reading:

* ``cand``: one int per cell, bit ``d - 1`` set while digit ``d`` is a candidate;
* ``pos``: one int per (unit, digit), bit ``i`` set while the unit's ``i``-th cell can hold
  the digit (a placed digit keeps its cell's bit), so a hidden single is seen in O(1) the
  moment an elimination leaves one bit, and a placement visits only the peers still holding
  its digit, read off these masks, not all of its peers (layout: :class:`BitmaskTables`);
* ``grid``: the digit bit placed in each cell, 0 while open.

The givens are applied in bulk at the root (``encode``): candidates from each unit's used
digits, and every position mask at once from one bitboard of free places per digit, cut
into masks by ``int.to_bytes`` and ``memoryview.cast``, its hidden singles found by
guard-bit arithmetic on the whole board. Placements then go through one queue
(:func:`propagate`), which walks a unit's peers holding the digit as ``map`` over that
(unit, digit)'s member table, each peer coming with its other units' pos indices for the
digit, and tests "one bit or none" by a table lookup. Locked candidates (:func:`locked`)
run as ``map`` over table lookups, one table giving each band's whole fixpoint. Each
branch copies ``cand``, ``pos`` and ``grid``, except the last value tried, which reuses its
parent's state; the branch cell is a first minimum of a popcount table read by
``itemgetter``, found by ``in`` (two candidates, the usual case) or ``min``, and ``index``.
BitmaskTables: :mod:`backends.bitmask_tables`.

Options: ``locked`` = ``root`` (default: at the root only), ``all`` (after every assignment;
fewer nodes, but slower here) or ``none`` (Norvig's rules alone); ``ties`` = 3 (default:
of the first three cells with the fewest candidates, the one with the most two-candidate
peers) or 1 (the first, as Norvig). With ``locked=none,ties=1`` it tries the same values as
Norvig's ``sudoku.py``: 6,222 on top95.

Counters (see :mod:`backends.base`): ``nodes`` is the root plus one per value tried, a value
refuted by its propagation included; ``guesses`` counts the branch points (every branch cell
has two or more candidates, since singles are always placed); ``backtracks`` counts the
tried values whose subtree was left.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import compress
from operator import itemgetter, or_
from typing import ClassVar, NamedTuple

from backends.base import Backend, Option, SolveResult, Status
from backends.bitmask_tables import PLACED, BitmaskTables, tables, unit_masks
from backends.errors import BackendOptionError
from backends.puzzle import Puzzle

#: Nodes between two looks at the clock when a time limit is set, minus one (a power of 2).
CLOCK_MASK = 63
LOCKED: tuple[str, ...] = ("root", "all", "none")

State = tuple[list[int], list[int], list[int]]  # cand, pos, grid
Queue = list[tuple[int, int]]  # (cell, digit bit) placements waiting to be made


class Root(NamedTuple):
    """The encoded puzzle: the state after the givens, and the singles waiting to be placed.

    ``state`` is None when the givens already contradict each other (UNSAT at the root).
    """

    tables: BitmaskTables
    state: State | None
    queue: Queue


def root(puzzle: Puzzle) -> Root:
    """Apply the givens in bulk: candidates, position masks, and the singles they leave."""
    t = tables(puzzle.box)
    n, board, blocks, units_of = t.n, t.board, t.blocked, t.units_of
    cells = puzzle.cells
    grid = list(map(t.bit_of.__getitem__, cells))
    givens = list(compress(range(len(cells)), cells))
    used = [0] * (3 * n)
    blocked = [0] * n  # per digit: the unit slots its givens rule out
    placed = [0] * n  # per digit: the unit slots of its givens
    for c, v, bit in zip(givens, compress(cells, cells), compress(grid, grid), strict=True):
        blocked[v - 1] |= blocks[c]
        placed[v - 1] |= board[c]
        r, co, b = units_of[c]
        used[r] |= bit
        used[co] |= bit
        used[b] |= bit
    full = t.full
    cand = [full ^ (used[r] | used[co] | used[b]) for r, co, b in units_of]
    for c in givens:
        cand[c] = grid[c]
    every, span, filled = t.every, t.span, sum(placed)
    free = sum((every ^ (blocked[d] | filled)) << (d * span) for d in range(n))
    ours = sum(placed[d] << (d * span) for d in range(n))
    # Per unit slot of ``stride`` bits, its top bit a guard: ``x - 1`` never borrows across.
    guard, ones = t.guard, t.ones
    if (((ours & ((ours | guard) - ones)) | guard) - ones) & guard:
        return Root(t, None, [])  # a digit given twice in one unit
    less = (free | guard) - ones  # each mask minus one, its guard kept where it was not 0
    open_units = less & guard  # masks with a free place
    crowded = (((free & less) | guard) - ones) & guard  # masks with 2+ places
    if (guard ^ open_units).bit_count() != 3 * len(givens):
        return Root(t, None, [])  # a unit with no place for a digit it needs
    pos = unit_masks(t, free | ours)
    queue = _root_singles(t, cand, grid, len(givens))
    if queue is None:
        return Root(t, None, [])
    hidden = open_units ^ crowded  # masks with one place: hidden singles
    while hidden:
        g = hidden & -hidden
        hidden ^= g
        f = g.bit_length() // t.stride - 1
        queue.append((t.back[f][pos[f]], 1 << (f % (n * n) // n)))
    return Root(t, (cand, pos, grid), queue)


def _root_singles(t: BitmaskTables, cand: list[int], grid: list[int], givens: int) -> Queue | None:
    """The naked singles the givens leave; None when a cell has no candidate."""
    keys = list(map(t.key, cand))
    if 0 in keys:
        return None
    queue: Queue = []
    at = -1
    if keys.count(PLACED) > givens:  # one candidate: a given, or a naked single
        for _ in range(keys.count(PLACED)):
            at = keys.index(PLACED, at + 1)
            if not grid[at]:
                queue.append((at, cand[at]))
    return queue


def propagate(t: BitmaskTables, state: State, queue: Queue) -> bool:
    """Make the queued placements and every single they lead to.

    Returns False on a contradiction. Invariant: a cell holds digit ``d`` in ``cand``
    exactly when its bit is set in the position masks of its three units for ``d``, and a
    cell with one candidate is placed or queued. This is where the solver spends its time,
    so it is one function with every unit written out by hand (no inner call, no loop over
    the three units): in CPython that inlining is the speed, hence the length. A peer found
    through one of the cell's units leaves its two other units' masks; the unit itself is
    set to the cell.
    """
    cand, pos, grid = state
    info, offset, few, slots_of, digits = t.info, t.offset, t.few, t.slots_of, t.digits
    members = t.members
    pop, push = queue.pop, queue.append
    while queue:
        c, bit = pop()
        placed = grid[c]
        if placed:
            if placed == bit:
                continue
            return False
        held = cand[c]
        if not held & bit:
            return False
        grid[c] = cand[c] = bit
        ru, rx, rb, cu, cx, cb, bu, bx, bb = info[c]
        for k, d in digits[held ^ bit]:  # the other digits leave the cell's units' masks
            i = d + ru
            m = pos[i] ^ rx
            pos[i] = m
            if few[m]:
                if not m:
                    return False
                q = rb[m]
                if cand[q] != k:
                    push((q, k))
            i = d + cu
            m = pos[i] ^ cx
            pos[i] = m
            if few[m]:
                if not m:
                    return False
                q = cb[m]
                if cand[q] != k:
                    push((q, k))
            i = d + bu
            m = pos[i] ^ bx
            pos[i] = m
            if few[m]:
                if not m:
                    return False
                q = bb[m]
                if cand[q] != k:
                    push((q, k))
        d = offset[bit]
        i = d + ru
        peers = pos[i] ^ rx
        pos[i] = rx
        for p, pc, pcx, pcb, pb, pbx, pbb in map(members[i], slots_of[peers]) if peers else ():
            left = cand[p] ^ bit
            cand[p] = left
            if few[left]:
                if not left:
                    return False
                push((p, left))
            m = pos[pc] ^ pcx
            pos[pc] = m
            if few[m]:
                if not m:
                    return False
                q = pcb[m]
                if cand[q] != bit:
                    push((q, bit))
            m = pos[pb] ^ pbx
            pos[pb] = m
            if few[m]:
                if not m:
                    return False
                q = pbb[m]
                if cand[q] != bit:
                    push((q, bit))
        i = d + cu
        peers = pos[i] ^ cx
        pos[i] = cx
        for p, pr, prx, prb, pb, pbx, pbb in map(members[i], slots_of[peers]) if peers else ():
            left = cand[p] ^ bit
            cand[p] = left
            if few[left]:
                if not left:
                    return False
                push((p, left))
            m = pos[pr] ^ prx
            pos[pr] = m
            if few[m]:
                if not m:
                    return False
                q = prb[m]
                if cand[q] != bit:
                    push((q, bit))
            m = pos[pb] ^ pbx
            pos[pb] = m
            if few[m]:
                if not m:
                    return False
                q = pbb[m]
                if cand[q] != bit:
                    push((q, bit))
        i = d + bu
        peers = pos[i] ^ bx
        pos[i] = bx
        for p, pr, prx, prb, pc, pcx, pcb in map(members[i], slots_of[peers]) if peers else ():
            left = cand[p] ^ bit
            cand[p] = left
            if few[left]:
                if not left:
                    return False
                push((p, left))
            m = pos[pr] ^ prx
            pos[pr] = m
            if few[m]:
                if not m:
                    return False
                q = prb[m]
                if cand[q] != bit:
                    push((q, bit))
            m = pos[pc] ^ pcx
            pos[pc] = m
            if few[m]:
                if not m:
                    return False
                q = pcb[m]
                if cand[q] != bit:
                    push((q, bit))
    return True


def locked(t: BitmaskTables, state: State, queue: Queue) -> int:
    """Pointing and claiming, to a fixpoint in every band and stack of every digit.

    A band (or stack) of ``box`` lines and ``box`` boxes is, for one digit, an occupancy
    matrix: which of its lines hold the digit in which of its boxes. Locked candidates only
    ever clear places of that matrix, so one table (``lock``) gives their whole fixpoint.
    The occupancies of every band and stack of every digit are built by ``map`` over
    strided slices of the line masks (``seg`` tables, one per line of a band), so Python
    only visits the bands that change: there are no stale hits to skip.
    Returns 1 when it removed a candidate (the singles it leaves are queued), 0 when not, -1
    on a contradiction.
    """
    pos = state[1]
    box, n = t.box, t.n
    lines = 2 * n * n
    occupied = map(t.seg[0], pos[0:lines:box])
    for r in range(1, box):
        occupied = map(or_, occupied, map(t.seg[r], pos[r:lines:box]))
    found = list(map(t.lock, occupied))
    if not any(found):
        return 0
    push, group, slots = queue.append, (1 << box) - 1, t.slots
    for h in compress(range(len(found)), found):
        cleared = found[h]
        if cleared < 0:
            return -1
        for r in range(box):
            boxes = cleared >> (r * box) & group
            if boxes:
                f = h * box + r
                if not _clear(t, state, f, pos[f] & slots[boxes], push):
                    return -1
    return 1


def _clear(t: BitmaskTables, state: State, f: int, out: int, push: Callable) -> bool:
    """Remove the places ``out`` from line ``f`` (a pos index): its digit leaves those cells'
    candidates and their other units' masks. False on a contradiction."""
    cand, pos, _ = state
    few, back = t.few, t.back
    bit = 1 << (f % (t.n * t.n) // t.n)
    drops = [(f, out)]  # (pos index, places it loses)
    for p, u, x, _, v, y, _ in map(t.members[f], t.slots_of[out]):
        left = cand[p] ^ bit
        cand[p] = left
        if few[left]:
            if not left:
                return False
            push((p, left))
        drops += ((u, x), (v, y))
    for g, x in drops:
        m = pos[g] ^ x
        pos[g] = m
        if few[m]:
            if not m:
                return False
            q = back[g][m]
            if cand[q] != bit:
                push((q, bit))
    return True


def settle(t: BitmaskTables, state: State, queue: Queue, look: bool) -> bool:
    """Propagate the queue, then (when ``look``) locked candidates, until neither changes
    anything or every cell is placed; False on a contradiction."""
    if not propagate(t, state, queue):
        return False
    grid = state[2]
    while look and 0 in grid:
        removed = locked(t, state, queue)
        if removed <= 0:
            return removed == 0
        if not propagate(t, state, queue):
            return False
    return True


@dataclass
class BitmaskOutcome:
    """How one search ended: solutions found (up to the limit) and the counters."""

    solutions: list[tuple[int, ...]]
    nodes: int = 1
    guesses: int = 0
    backtracks: int = 0
    timed_out: bool = False

    def result(self) -> SolveResult:
        """The outcome as the contract's :class:`SolveResult`."""
        found = self.solutions
        status = Status.TIMEOUT if self.timed_out else Status.SOLVED if found else Status.UNSAT
        first = found[0] if found else None
        return SolveResult(status, first, len(found), self.nodes, self.guesses, self.backtracks)


def search(
    t: BitmaskTables, state: State, limit: int, look: bool, ties: int, deadline: float | None
) -> BitmaskOutcome:
    """Depth first from a settled ``state`` for up to ``limit`` solutions.

    The branch cell has the fewest candidates; of the first ``ties`` such cells, the one
    with the most peers left with two candidates (the first on a tie), whose values will
    propagate furthest.

    The stack holds, per branch point, the parent's state, its cell, the digit bits not
    tried yet and its depth; each value but the last works on a copy (nothing is undone).
    The counters are locals and the branch cell is chosen inline: this loop runs per node.
    """
    key, table, peers, clock = t.key, t.key_table, t.peers, time.perf_counter
    solutions: list[tuple[int, ...]] = []
    stack: list[list] = []
    nodes, guesses, depth = 1, 0, 0  # depth: values on the path to the current state
    while True:
        counts = itemgetter(*state[0])(table) if table else list(map(key, state[0]))
        fewest = 2 if 2 in counts else min(counts)  # ``in`` is faster than ``min``
        if fewest == PLACED:  # every cell placed: a solution
            solutions.append(tuple(map(int.bit_length, state[2])))
            if len(solutions) >= limit:
                return BitmaskOutcome(solutions, nodes, guesses, nodes - 1 - depth)
        else:
            cell = at = counts.index(fewest)
            if fewest == 2 and ties > 1:  # else no peer has two candidates: the first wins
                best = peers[cell](counts).count(2)
                try:
                    for _ in range(ties - 1):
                        at = counts.index(2, at + 1)
                        score = peers[at](counts).count(2)
                        if score > best:
                            cell, best = at, score
                except ValueError:  # fewer than ``ties`` such cells
                    pass
            guesses += 1
            stack.append([state, cell, state[0][cell], depth])
        while stack:  # the next value to try, deepest branch point first
            top = stack[-1]
            parent, cell, untried, depth = top
            bit = untried & -untried
            untried ^= bit
            if untried:
                top[2] = untried
                state = (parent[0][:], parent[1][:], parent[2][:])
            else:
                stack.pop()
                state = parent
            if deadline is not None and not nodes & CLOCK_MASK and clock() > deadline:
                return BitmaskOutcome(solutions, nodes, guesses, nodes - 1 - depth, timed_out=True)
            nodes += 1
            queue = [(cell, bit)]
            if settle(t, state, queue, True) if look else propagate(t, state, queue):
                depth += 1
                break
        else:
            return BitmaskOutcome(solutions, nodes, guesses, nodes - 1)


def parse_ties(text: str) -> int:
    """A ``ties`` value: a whole number, 1 or more."""
    ties = int(text) if str(text).strip().lstrip("-").isdigit() else 0
    if ties < 1:
        raise BackendOptionError(f"expected a whole number, 1 or more, got {text!r}")
    return ties


class BitmaskBackend(Backend):
    """Norvig's singles, locked candidates and fewest-candidates search on int masks."""

    name: ClassVar[str] = "bitmask"
    summary: ClassVar[str] = (
        "Norvig's singles plus locked candidates, fewest-candidates search, on flat int "
        "candidate and per-unit position masks: the fastest pure-Python search here"
    )
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "locked",
            "root",
            "locked candidates (pointing and claiming, to a fixpoint in every band): root "
            "(after the givens only), all (after every assignment too), none (Norvig's rules)",
            choices=LOCKED,
        ),
        Option(
            "ties",
            3,
            "among the first TIES cells with the fewest candidates, branch on the one with "
            "the most two-candidate peers; 1 = the first such cell, as Norvig",
            parse=parse_ties,
        ),
    )

    def encode(self, puzzle: Puzzle) -> Root:
        """The givens applied in bulk: candidates, position masks and the singles they leave."""
        return root(puzzle)

    def solve(self, encoded: Root, limit: int = 1, time_limit: float | None = None) -> SolveResult:
        """Settle the root, then search; TIMEOUT once ``time_limit`` has run out."""
        if limit < 1:
            raise ValueError(f"limit must be 1 or more, got {limit!r}")
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        t, state = encoded.tables, encoded.state
        if state is None:
            return BitmaskOutcome([]).result()
        state = (state[0][:], state[1][:], state[2][:])  # the encoding stays reusable
        mode = self.config["locked"]
        if not settle(t, state, list(encoded.queue), mode != "none"):
            return BitmaskOutcome([]).result()
        ties = self.config["ties"]
        return search(t, state, limit, mode == "all", ties, deadline).result()
