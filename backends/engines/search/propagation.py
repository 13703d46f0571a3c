"""Inferences: what the search runs after each assignment (and once at the root).

An inference is ``(cands, cell, bit, t) -> bool`` (:data:`~.state.Inference`): called right
after the core assigned ``bit`` to ``cell`` in a fresh copy of the state, it prunes that copy
in place and returns False on a contradiction. At the root it is called with ``cell ==
ROOT`` (and ``bit == 0``) to make the starting state consistent.

* :func:`check`: no pruning, only the validity check on assignment.
* :func:`forward`: forward checking.
* :func:`singles` (Norvig's naked and hidden singles) and :func:`with_pairs` (singles plus
  the pair rules of :data:`PAIRS`), built on :func:`propagate`.
* :func:`with_locked`: singles and pairs, then locked candidates, to a fixpoint of both.

Every rule removes bits from an unassigned value as the state's invariants require (see
:mod:`backends.engines.search.state`).
"""

from __future__ import annotations

from functools import cache, reduce
from operator import or_

from backends.engines.search.state import ROOT, Getter, Inference, Queue, SearchTables, State

#: ``propagate`` flags: the pair rules to apply in each unit besides the singles.
HIDDEN_PAIRS = 1
NAKED_PAIRS = 2
#: The pair rules by option value, as :func:`propagate` flags.
PAIRS: dict[str, int] = {
    "none": 0,
    "hidden": HIDDEN_PAIRS,
    "naked": NAKED_PAIRS,
    "both": HIDDEN_PAIRS | NAKED_PAIRS,
}


def check(cands: State, cell: int, bit: int, t: SearchTables) -> bool:
    """No pruning: the value must only differ from every assigned peer's value."""
    if cell == ROOT:
        return True
    return t.assigned | bit not in t.peer_values[cell](cands)


def forward(cands: State, cell: int, bit: int, t: SearchTables) -> bool:
    """Forward checking: remove the digit from the peers' candidates; fail if one empties."""
    if cell == ROOT:
        return True
    one = t.one
    step = bit + one
    for p in t.peers[cell]:
        mask = cands[p]
        if mask & bit:
            mask -= step
            if mask < one:
                return False
            cands[p] = mask
    return True


def propagate(cands: State, t: SearchTables, queue: Queue, dirty: int, pairs: int) -> bool:
    """Naked and hidden singles (and the ``pairs`` rules) to a fixpoint; False on a contradiction.

    ``queue`` holds (cell, bit) for cells just assigned whose digit the peers still hold;
    ``dirty`` has bit ``u`` set for each unit ``u`` to search for hidden singles. Every change
    queues or dirties what it affects, so on True no rule applies anywhere.

    * naked single: an assigned digit leaves the peers; a cell left with one digit is assigned.
    * hidden single: a digit with one open place in a unit is assigned there.
    * :data:`HIDDEN_PAIRS` (Vermeer's rule for N = 2): two digits that are both confined to
      the same two open cells of a unit drop every other digit from those cells.
    * :data:`NAKED_PAIRS`: two open cells of a unit holding the same two digits remove them
      from the unit's other cells.

    Contradictions: a cell without candidates, a digit assigned twice in a unit or with no
    place in it, one cell the only place of two digits, three digits confined to two cells.
    """
    full, assigned, units = t.full, t.assigned, t.units
    while True:
        dirty = _drain(cands, t, queue, dirty)
        if dirty < 0:
            return False
        while dirty:
            low = dirty & -dirty
            dirty ^= low
            unit = units[low.bit_length() - 1]
            # Open cells' values are OR-ed whole: the bits above ``full`` are masked off below.
            once = twice = thrice = placed = 0
            for p in unit:
                mask = cands[p]
                if mask >= assigned:
                    placed |= mask
                else:
                    thrice |= twice & mask
                    twice |= once & mask
                    once |= mask
            if (once | placed) & full != full:
                return False  # a digit with no place in this unit
            hidden = once & ~(twice | placed) & full
            if hidden:
                changed = _hidden_singles(cands, unit, hidden, t, queue)
            elif pairs:
                changed = _pair_rules(
                    cands, unit, twice & ~(thrice | placed) & full, t, queue, pairs
                )
            else:
                continue
            if changed < 0:
                return False
            dirty |= changed
            if hidden:
                break  # drain the queue first; the unit is dirty again by then
        else:
            if not queue:
                return True


def _drain(cands: State, t: SearchTables, queue: Queue, dirty: int) -> int:
    """Naked singles: take each queued cell's digit from its peers, assigning (and queueing)
    a peer left with one. Returns ``dirty`` plus the units changed, or -1 on a contradiction
    (an assigned peer with the same digit, or a peer left with none)."""
    full, assigned, one, peers, unit_bits = t.full, t.assigned, t.one, t.peers, t.unit_bits
    two = one + one
    while queue:
        c, b = queue.pop()
        step = b + one
        for p in peers[c]:
            mask = cands[p]
            if mask & b:
                if mask >= assigned:
                    return -1  # an assigned peer holds the same digit
                mask -= step
                if mask < two:
                    if mask < one:
                        return -1
                    mask = assigned | (mask & full)
                    queue.append((p, mask & full))
                cands[p] = mask
                dirty |= unit_bits[p]
    return dirty


def _hidden_singles(
    cands: State, unit: tuple[int, ...], hidden: int, t: SearchTables, queue: Queue
) -> int:
    """Assign each digit of ``hidden`` (one open place each in ``unit``) there, and queue it.

    Returns the units changed, or -1 when one cell is the only place of two digits.
    """
    assigned, unit_bits = t.assigned, t.unit_bits
    dirty = 0
    for p in unit:
        mask = cands[p]
        if mask < assigned and mask & hidden:
            mask &= hidden
            if mask & (mask - 1):
                return -1
            cands[p] = assigned | mask
            queue.append((p, mask))
            dirty |= unit_bits[p]
    return dirty


def _pair_rules(
    cands: State, unit: tuple[int, ...], doubles: int, t: SearchTables, queue: Queue, pairs: int
) -> int:
    """The ``pairs`` rules in ``unit``, whose ``doubles`` digits have two places each: the
    units changed, or -1 on a contradiction."""
    dirty = 0
    if pairs & HIDDEN_PAIRS and doubles & (doubles - 1):
        dirty = _hidden_pairs(cands, unit, doubles, t)
        if dirty < 0:
            return -1
    if pairs & NAKED_PAIRS:
        changed = _naked_pairs(cands, unit, t, queue)
        if changed < 0:
            return -1
        dirty |= changed
    return dirty


def _hidden_pairs(cands: State, unit: tuple[int, ...], doubles: int, t: SearchTables) -> int:
    """Hidden pairs among the ``doubles`` digits (two places each) of ``unit``.

    Two open cells sharing two of those digits hold every place of both, so they keep only
    those two. Returns the units to search again, or -1 on a contradiction: three digits
    confined to two cells, or a cell that two disjoint pairs both claim.
    """
    assigned = t.assigned
    seen: list[tuple[int, int]] = []
    dirty = 0
    for p in unit:
        mask = cands[p]
        mine = mask & doubles
        if mask >= assigned or not mine & (mine - 1):
            continue
        for q, theirs in seen:
            pair = mine & theirs
            if pair & (pair - 1):
                changed = _keep_pair(cands, (q, p), pair, t)
                if changed < 0:
                    return -1
                dirty |= changed
        seen.append((p, mine))
    return dirty


def _keep_pair(cands: State, cells: tuple[int, int], pair: int, t: SearchTables) -> int:
    """Leave ``cells`` only the two digits of ``pair``: the units changed, or -1 when
    ``pair`` has more than two digits or a cell has lost one of them to an earlier pair."""
    if pair.bit_count() > 2:
        return -1
    full, two, n, unit_bits = t.full, t.one + t.one, t.n, t.unit_bits
    dirty = 0
    for cell in cells:
        bits = cands[cell] & full
        if bits & pair != pair:
            return -1  # an earlier pair already took this cell
        if bits != pair:
            cands[cell] = two | cell << n | pair
            dirty |= unit_bits[cell]
    return dirty


def _naked_pairs(cands: State, unit: tuple[int, ...], t: SearchTables, queue: Queue) -> int:
    """Naked pairs in ``unit``: two open cells holding the same two digits own them.

    Removes both digits from the unit's other open cells; a cell left with one digit is
    assigned and queued. Returns the units to search again, or -1 on a contradiction (a
    third cell with the same two digits, or a cell left with none).
    """
    full, assigned, one = t.full, t.assigned, t.one
    two = one + one
    three = two + one
    first_at: dict[int, int] = {}
    pairs: list[tuple[int, int, int]] = []
    for p in unit:
        mask = cands[p]
        if two <= mask < three:
            bits = mask & full
            q = first_at.get(bits)
            if q is None:
                first_at[bits] = p
            elif q < 0:
                return -1
            else:
                pairs.append((bits, q, p))
                first_at[bits] = -1
    dirty = 0
    for pair, a, b in pairs:
        for p in unit:
            mask = cands[p]
            if mask & pair and mask < assigned and p != a and p != b:
                changed = _take(cands, p, mask, mask & pair, t, queue)
                if changed < 0:
                    return -1
                dirty |= changed
    return dirty


def _take(cands: State, cell: int, mask: int, gone: int, t: SearchTables, queue: Queue) -> int:
    """Remove the bits ``gone`` from open ``cell`` (value ``mask``), assigning and queueing it
    when one candidate is left: the cell's units, or -1 when none is left."""
    left = (mask & t.full) ^ gone
    if not left:
        return -1
    if left & (left - 1):
        cands[cell] = t.open_value(cell, left)
    else:
        cands[cell] = t.assigned | left
        queue.append((cell, left))
    return t.unit_bits[cell]


def _start(cands: State, cell: int, bit: int, t: SearchTables) -> tuple[Queue, int]:
    """What :func:`propagate` starts from: after an assignment, that cell and its units; at
    the root, every open cell left with one candidate (now assigned) and every unit."""
    if cell != ROOT:
        return [(cell, bit)], t.unit_bits[cell]
    full, assigned, one = t.full, t.assigned, t.one
    two = one + one
    queue = []
    for c, mask in enumerate(cands):
        if one <= mask < two:
            cands[c] = assigned | (mask & full)
            queue.append((c, mask & full))
    return queue, (1 << len(t.units)) - 1


def _rule_names(pairs: int) -> list[str]:
    """The names of the pair rules in ``pairs``, for the inferences' own names."""
    return [name for name, flag in PAIRS.items() if flag & (flag - 1) == 0 and pairs & flag]


@cache
def with_pairs(pairs: int) -> Inference:
    """Singles plus the ``pairs`` rules (:data:`PAIRS`), to a fixpoint (see :func:`propagate`)."""

    def inference(cands: State, cell: int, bit: int, t: SearchTables) -> bool:
        queue, dirty = _start(cands, cell, bit, t)
        return propagate(cands, t, queue, dirty, pairs)

    inference.__name__ = inference.__qualname__ = "_".join(["singles", *_rule_names(pairs)])
    inference.__doc__ = "Naked and hidden singles and the pair rules asked for, to a fixpoint."
    return inference


#: Norvig's propagation: naked and hidden singles to a fixpoint (see :func:`propagate`).
singles = with_pairs(0)


def locked_candidates(cands: State, t: SearchTables, queue: Queue) -> int:
    """Pointing and claiming over every box-line intersection, once.

    A digit whose open places in a box all lie on one line leaves the rest of that line
    (pointing); one whose open places on a line all lie in one box leaves the rest of that
    box (claiming). A cell left with one candidate is assigned and put on ``queue`` for
    :func:`propagate`. Returns the units of the cells changed (0 if none), or -1 on a
    contradiction.

    The unions of every segment (box-line intersection) are taken once, in C, before any
    removal; a removal can only make later decisions of the same pass more cautious or act
    in a state that has no solution anyway, so the pass stays sound. The state must hold no
    assigned digit among a peer's candidates (as :func:`propagate` leaves it): then an
    assigned cell changes no decision, so assigned values are OR-ed in with the open ones.
    """
    full = t.full
    dirty = 0
    unions = [reduce(or_, cells(cands)) for cells in t.segment_values]
    for inside, (line_others, box_others, line_rest, box_rest) in zip(
        unions, t.segments, strict=True
    ):
        inside &= full
        if not inside:
            continue
        in_line = in_box = 0
        for j in line_others:
            in_line |= unions[j]
        for j in box_others:
            in_box |= unions[j]
        pointing = inside & in_line & ~in_box
        claiming = inside & in_box & ~in_line
        for drop, cells in ((pointing, line_rest), (claiming, box_rest)):
            if drop:
                changed = _remove(cands, cells, drop, t, queue)
                if changed < 0:
                    return -1
                dirty |= changed
    return dirty


def _remove(cands: State, cells: Getter, drop: int, t: SearchTables, queue: Queue) -> int:
    """Remove ``drop`` from the open cells ``cells`` reads: the units changed, or -1."""
    assigned = t.assigned
    dirty = 0
    for mask in cells(cands):
        gone = mask & drop
        if gone and mask < assigned:
            changed = _take(cands, t.cell_of(mask), mask, gone, t, queue)
            if changed < 0:
                return -1
            dirty |= changed
    return dirty


@cache
def with_locked(pairs: int = 0) -> Inference:
    """Singles (and the ``pairs`` rules of :func:`propagate`), then locked candidates, to a
    fixpoint of both.

    Pass it as ``search(root=...)`` for locked candidates at the root only, or as the
    inference for locked candidates after every assignment too.
    """

    def locked(cands: State, cell: int, bit: int, t: SearchTables) -> bool:
        queue, dirty = _start(cands, cell, bit, t)
        while propagate(cands, t, queue, dirty, pairs):
            dirty = locked_candidates(cands, t, queue)
            if dirty <= 0:
                return dirty == 0
        return False

    locked.__name__ = locked.__qualname__ = "_".join(["singles", *_rule_names(pairs), "locked"])
    locked.__doc__ = "Singles, the pair rules asked for, and locked candidates, to a fixpoint."
    return locked
