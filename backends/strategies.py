"""The logic ladder: human solving strategies on candidate bitmasks, each explaining itself.

A :class:`Board` holds, per cell of a :class:`~backends.puzzle.Geometry`, the placed digit
(``values``, 0 for an open cell) and the candidate bits (``cands``: bit ``d - 1`` set when
digit ``d`` is possible; a placed cell keeps the one bit of its digit). Placing a digit
removes it from the peers' candidates at once; that clean-up is part of the placement, not
a step of its own.

A strategy is a small named function ``find(board) -> Step | None``: the first deduction it
sees, or None. It never changes the board; :meth:`Board.apply` does. A :class:`Step` says
what it places and what it eliminates, and why, in one line of text such as
``r3c5 = 7 (hidden single in box 2)``.

Every strategy is sound on any board: it places or removes only what holds in *every*
solution that extends the board, so the ladder may run after a guess and with puzzles that
have several solutions. No uniqueness-based strategy (unique rectangles and the like) is
here, for that reason.

The ladder
----------
:data:`LADDER` lists the strategies cheapest first; the solver in :mod:`backends.logic`
applies the first one that makes progress, then restarts from the top. Names follow HoDoKu
and Sudoku Explainer; the levels are Zambon's (seed 003):

====  ==============================================================================
0     hidden single, naked single
1     pointing and claiming (HoDoKu's locked candidates type 1 and 2; Zambon's
      "pointing-line" and "box-line"), naked pair, hidden pair
2     naked triple, x-wing, hidden triple, xy-wing, naked quad; added: xyz-wing,
      hidden quad
3     skyscraper, 2-string kite, turbot fish (single-digit chains of two strong links:
      Zambon's "rectangle"), swordfish, jellyfish, xy-chain, x-chain; added: w-wing,
      aic (alternating inference chains mixing cell and unit strong links) and forcing
      chain (cell, unit and contradiction forcing chains over the same links)
====  ==============================================================================

What the additions pay, measured by ``benchmarks/bench_logic.py`` on 1,000 generated
minimal puzzles: Zambon's ladder with w-wing solves 82.5% with no guess, adding aic 95.7%,
adding forcing chains 99.4%. Hidden quad and xyz-wing are cheap completions of the subset
and wing families.

Each strategy has a **weight**, its difficulty on Sudoku Explainer's scale where SE rates
the technique (hidden single 1.5, naked single 2.3, pointing 2.6, claiming 2.8, naked pair
3.0, hidden pair 3.4, naked triple 3.6, hidden triple 4.0, xy-wing 4.2, xyz-wing 4.4,
naked quad 5.0, hidden quad 5.4, jellyfish 5.2 -> 6.0), moved where needed so that weights
never decrease from one level to the next (x-wing 3.2 -> 3.8, swordfish 3.8 -> 5.8); for
the techniques SE lacks, placed within level 3 by how long their chains are (skyscraper 5.6
... aic 6.6); forcing chains, the top of the ladder, 7.5.
:data:`GUESS_WEIGHT` (10.0) is what a guess weighs. See :mod:`harness.rating` for the score.

Strategies generalise with the box side: units have ``n`` cells, subsets go up to four
cells, fish up to jellyfish (four lines), for 4x4 to 25x25 alike.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache, reduce
from operator import itemgetter, or_

from backends.puzzle import Geometry, Puzzle, canonical_alphabet, geometry

Cell = int
Digit = int
Pair = tuple[Cell, Digit]
#: A rule's finder: the first step it can take on a board, or None.
Finder = Callable[["Board"], "Step | None"]

#: The level of a guess (Zambon records a backtrack as strategy 40 + depth: level 4).
GUESS_LEVEL = 4
#: The weight of a guess on the score scale (above every strategy of the ladder).
GUESS_WEIGHT = 10.0


class TimeUp(Exception):
    """The board's deadline passed while a strategy was searching."""


@dataclass(frozen=True)
class Step:
    """One deduction (or a guess, or a backtrack), with the text that explains it.

    ``placements`` and ``eliminations`` are ``(cell, digit)`` pairs. ``depth`` is the number
    of guesses in force when the step was made (0 before any guess).
    """

    strategy: str
    level: int
    placements: tuple[Pair, ...]
    eliminations: tuple[Pair, ...]
    text: str
    depth: int = 0


# --------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class Layout:
    """Per-size lookup data for the strategies, derived from a :class:`Geometry`."""

    geo: Geometry
    n: int = field(init=False)
    ncells: int = field(init=False)
    full: int = field(init=False)
    symbols: str = field(init=False)
    peer_bits: tuple[int, ...] = field(init=False, repr=False)  # per cell: peers as cell bits
    cell_nodes: tuple[int, ...] = field(init=False, repr=False)  # per cell: its nodes, all digits
    unit_values: tuple[Callable[[Sequence[int]], tuple[int, ...]], ...] = field(
        init=False, repr=False
    )
    # (box unit, line unit, common cells, rest of the box, rest of the line)
    intersections: tuple[
        tuple[int, int, tuple[int, ...], tuple[int, ...], tuple[int, ...]], ...
    ] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        geo = self.geo
        n, ncells = geo.n, geo.ncells
        intersections = []
        for b in range(n):
            box_unit = 2 * n + b
            box = geo.units[box_unit]
            for line_unit in range(2 * n):
                line = geo.units[line_unit]
                common = tuple(c for c in box if c in line)
                if common:
                    box_rest = tuple(c for c in box if c not in common)
                    line_rest = tuple(c for c in line if c not in common)
                    intersections.append((box_unit, line_unit, common, box_rest, line_rest))
        for name, value in (
            ("n", n),
            ("ncells", ncells),
            ("full", (1 << n) - 1),
            ("symbols", canonical_alphabet(n)),
            ("peer_bits", tuple(sum(1 << p for p in ps) for ps in geo.peers)),
            (
                "cell_nodes",
                tuple(sum(1 << (k * ncells + c) for k in range(n)) for c in range(ncells)),
            ),
            ("unit_values", tuple(itemgetter(*u) for u in geo.units)),
            ("intersections", tuple(intersections)),
        ):
            object.__setattr__(self, name, value)

    def cell(self, cell: Cell) -> str:
        return self.geo.cell_name(cell)

    def cells(self, cells: Sequence[Cell]) -> str:
        return ", ".join(self.geo.cell_name(c) for c in cells)

    def digit(self, digit: Digit) -> str:
        return self.symbols[digit - 1]

    def digits(self, mask: int) -> str:
        return "/".join(self.symbols[d - 1] for d in digits_of(mask))

    def unit(self, unit: int) -> str:
        return self.geo.unit_name(unit)


@cache
def layout(box: int) -> Layout:
    """The (cached) strategy tables for box side ``box``."""
    return Layout(geometry(box))


@cache
def digits_of(mask: int) -> tuple[Digit, ...]:
    """The digits whose bits are set in ``mask``, ascending."""
    return tuple(d + 1 for d in range(mask.bit_length()) if mask >> d & 1)


def bits(mask: int) -> Iterator[int]:
    """The indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


# --------------------------------------------------------------------------- the board


class Board:
    """Placed digits and candidate bits per cell; changed only by place/eliminate/apply."""

    __slots__ = ("cands", "deadline", "lay", "values")

    def __init__(
        self, lay: Layout, cands: list[int], values: list[int], deadline: float | None = None
    ) -> None:
        self.lay = lay
        self.cands = cands
        self.values = values
        self.deadline = deadline

    @classmethod
    def from_puzzle(cls, puzzle: Puzzle) -> tuple[Board, str | None]:
        """The board of the givens, and why it is already contradictory (or None)."""
        lay = layout(puzzle.box)
        geo = lay.geo
        values = list(puzzle.cells)
        cands = []
        for cell, digit in enumerate(values):
            if digit:
                cands.append(1 << (digit - 1))
            else:
                seen = 0
                for p in geo.peers[cell]:
                    if values[p]:
                        seen |= 1 << (values[p] - 1)
                cands.append(lay.full & ~seen)
        board = cls(lay, cands, values)
        for cell, digit in enumerate(values):
            if digit and any(values[p] == digit for p in geo.peers[cell]):
                clash = next(p for p in geo.peers[cell] if values[p] == digit)
                return board, (
                    f"given {lay.digit(digit)} at {lay.cell(cell)} repeats {lay.cell(clash)}"
                )
        for cell, mask in enumerate(cands):
            if not mask:
                return board, f"{lay.cell(cell)} has no candidate left"
        return board, board.broken_unit()

    def copy(self) -> Board:
        return Board(self.lay, self.cands.copy(), self.values.copy(), self.deadline)

    def is_complete(self) -> bool:
        return 0 not in self.values

    def check_time(self) -> None:
        """Raise :class:`TimeUp` once the deadline (a ``perf_counter`` value) has passed."""
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise TimeUp

    def place(self, cell: Cell, digit: Digit) -> str | None:
        """Place ``digit`` and remove it from the peers; why that is impossible, or None."""
        lay = self.lay
        bit = 1 << (digit - 1)
        if self.values[cell]:
            if self.values[cell] == digit:
                return None
            return f"{lay.cell(cell)} already holds {lay.digit(self.values[cell])}"
        if not self.cands[cell] & bit:
            return f"{lay.digit(digit)} is not a candidate of {lay.cell(cell)}"
        cands, values = self.cands, self.values
        values[cell] = digit
        cands[cell] = bit
        for p in lay.geo.peers[cell]:
            mask = cands[p]
            if mask & bit:
                if values[p]:
                    return f"{lay.digit(digit)} is already in {lay.cell(p)}"
                mask ^= bit
                cands[p] = mask
                if not mask:
                    return f"{lay.cell(p)} has no candidate left"
        return None

    def eliminate(self, cell: Cell, digit: Digit) -> str | None:
        """Remove one candidate; why that is impossible, or None."""
        bit = 1 << (digit - 1)
        if self.values[cell]:
            if self.values[cell] == digit:
                return f"{self.lay.cell(cell)} holds {self.lay.digit(digit)}, which was removed"
            return None
        mask = self.cands[cell] & ~bit
        self.cands[cell] = mask
        return None if mask else f"{self.lay.cell(cell)} has no candidate left"

    def apply(self, step: Step) -> str | None:
        """Make a step's placements and eliminations; the contradiction met, or None."""
        for cell, digit in step.eliminations:
            reason = self.eliminate(cell, digit)
            if reason:
                return reason
        for cell, digit in step.placements:
            reason = self.place(cell, digit)
            if reason:
                return reason
        return self.broken_unit()

    def broken_unit(self) -> str | None:
        """A unit with no place left for some digit, named, or None."""
        full, cands = self.lay.full, self.cands
        for u, getter in enumerate(self.lay.unit_values):
            seen = reduce(or_, getter(cands))
            if seen != full:
                missing = (full & ~seen).bit_length()
                return f"no place for {self.lay.digit(missing)} in {self.lay.unit(u)}"
        return None


def _step(
    name: str,
    placements: Sequence[Pair],
    eliminations: Sequence[Pair],
    text: str,
) -> Step:
    return Step(name, LEVELS[name], tuple(placements), tuple(eliminations), text)


def removal_text(lay: Layout, eliminations: Sequence[Pair]) -> str:
    """'remove 4 from r1c7, r1c8; 5 from r2c2': eliminations grouped by digit."""
    by_digit: dict[Digit, list[Cell]] = {}
    for cell, digit in eliminations:
        by_digit.setdefault(digit, []).append(cell)
    parts = [f"{lay.digit(d)} from {lay.cells(cells)}" for d, cells in sorted(by_digit.items())]
    return "remove " + "; ".join(parts)


def _eliminate(name: str, lay: Layout, eliminations: Sequence[Pair], why: str) -> Step:
    return _step(name, (), eliminations, f"{removal_text(lay, eliminations)} ({why})")


# --------------------------------------------------------------------------- level 0


def hidden_single(board: Board) -> Step | None:
    """A digit with one place left in a unit (boxes first, then rows, then columns)."""
    lay = board.lay
    cands, values, units = board.cands, board.values, lay.geo.units
    n = lay.n
    for u in (*range(2 * n, 3 * n), *range(2 * n)):
        once = twice = placed = 0
        for c in units[u]:
            mask = cands[c]
            if values[c]:
                placed |= mask
            else:
                twice |= once & mask
                once |= mask
        hidden = once & ~twice & ~placed
        if hidden:
            bit = hidden & -hidden
            cell = next(c for c in units[u] if cands[c] & bit and not values[c])
            digit = bit.bit_length()
            text = f"{lay.cell(cell)} = {lay.digit(digit)} (hidden single in {lay.unit(u)})"
            return _step("hidden single", [(cell, digit)], (), text)
    return None


def naked_single(board: Board) -> Step | None:
    """An open cell with one candidate left."""
    lay = board.lay
    for cell, (mask, value) in enumerate(zip(board.cands, board.values, strict=True)):
        if not value and mask and not mask & (mask - 1):
            digit = mask.bit_length()
            text = f"{lay.cell(cell)} = {lay.digit(digit)} (naked single)"
            return _step("naked single", [(cell, digit)], (), text)
    return None


# --------------------------------------------------------------------------- level 1


def _locked(board: Board, claiming: bool) -> Step | None:
    lay = board.lay
    cands, values = board.cands, board.values
    for box_u, line_u, common, box_rest, line_rest in lay.intersections:
        inside = 0
        for c in common:
            if not values[c]:
                inside |= cands[c]
        if not inside:
            continue
        in_box = reduce(or_, (cands[c] for c in box_rest), 0)
        in_line = reduce(or_, (cands[c] for c in line_rest), 0)
        if claiming:
            drop, targets = inside & in_box & ~in_line, box_rest
        else:
            drop, targets = inside & in_line & ~in_box, line_rest
        for digit in digits_of(drop):
            bit = 1 << (digit - 1)
            cells = [c for c in targets if not values[c] and cands[c] & bit]
            if cells:
                d = lay.digit(digit)
                box, line = lay.unit(box_u), lay.unit(line_u)
                if claiming:
                    why = f"claiming: in {line}, {d} lies only in {box}"
                else:
                    why = f"pointing: in {box}, {d} lies only in {line}"
                name = "claiming" if claiming else "pointing"
                return _eliminate(name, lay, [(c, digit) for c in cells], why)
    return None


def pointing(board: Board) -> Step | None:
    """Locked candidates type 1: a digit confined to one line within a box leaves the line."""
    return _locked(board, claiming=False)


def claiming(board: Board) -> Step | None:
    """Locked candidates type 2: a digit confined to one box within a line leaves the box."""
    return _locked(board, claiming=True)


def _subsets(items: Sequence[tuple[int, int]], k: int) -> Iterator[tuple[tuple[int, ...], int]]:
    """Every k of ``items`` (key, mask) whose masks' union has exactly k bits: (keys, union)."""

    def grow(
        start: int, keys: tuple[int, ...], union: int
    ) -> Iterator[tuple[tuple[int, ...], int]]:
        if len(keys) == k:
            if union.bit_count() == k:
                yield keys, union
            return
        for i in range(start, len(items) - (k - len(keys)) + 1):
            key, mask = items[i]
            merged = union | mask
            if merged.bit_count() <= k:
                yield from grow(i + 1, (*keys, key), merged)

    return grow(0, (), 0)


def _named(find: Finder, name: str, doc: str) -> Finder:
    """A rule made by a factory, under its own name (spaces and hyphens as ``_``) and doc,
    so tracebacks, profiles and the ladder listing tell the sizes apart."""
    find.__name__ = find.__qualname__ = name.replace(" ", "_").replace("-", "_")
    find.__doc__ = doc
    return find


SUBSET_NAMES = {2: "pair", 3: "triple", 4: "quad"}


def naked_subset(k: int) -> Finder:
    """k open cells of a unit holding only k digits between them: the digits leave the unit."""
    name = f"naked {SUBSET_NAMES[k]}"

    def find(board: Board) -> Step | None:
        lay = board.lay
        cands, values = board.cands, board.values
        for u, unit in enumerate(lay.geo.units):
            open_cells = [c for c in unit if not values[c]]
            if len(open_cells) <= k:
                continue
            small = [(c, cands[c]) for c in open_cells if 2 <= cands[c].bit_count() <= k]
            for cells, union in _subsets(small, k):
                drops = [
                    (c, d)
                    for c in open_cells
                    if c not in cells and cands[c] & union
                    for d in digits_of(cands[c] & union)
                ]
                if drops:
                    why = f"{name} {lay.digits(union)} in {lay.cells(cells)} of {lay.unit(u)}"
                    return _eliminate(name, lay, drops, why)
        return None

    doc = f"Naked {SUBSET_NAMES[k]}s: {k} cells of a unit with {k} digits between them."
    return _named(find, name, doc)


def hidden_subset(k: int) -> Finder:
    """k digits confined to the same k cells of a unit: those cells lose every other digit."""
    name = f"hidden {SUBSET_NAMES[k]}"

    def find(board: Board) -> Step | None:
        lay = board.lay
        cands, values = board.cands, board.values
        for u, unit in enumerate(lay.geo.units):
            placed = 0
            for c in unit:
                if values[c]:
                    placed |= cands[c]
            if lay.n - placed.bit_count() <= k:
                continue
            places: list[tuple[int, int]] = []
            for digit in digits_of(lay.full & ~placed):
                bit = 1 << (digit - 1)
                where = 0
                for i, c in enumerate(unit):
                    if cands[c] & bit:
                        where |= 1 << i
                if 2 <= where.bit_count() <= k:
                    places.append((digit, where))
            for found, where in _subsets(places, k):
                keep = sum(1 << (d - 1) for d in found)
                cells = [unit[i] for i in bits(where)]
                drops = [(c, d) for c in cells for d in digits_of(cands[c] & ~keep)]
                if drops:
                    why = f"{name} {lay.digits(keep)} in {lay.cells(cells)} of {lay.unit(u)}"
                    return _eliminate(name, lay, drops, why)
        return None

    doc = f"Hidden {SUBSET_NAMES[k]}s: {k} digits with the same {k} places in a unit."
    return _named(find, name, doc)


# --------------------------------------------------------------------------- fish

FISH_NAMES = {2: "x-wing", 3: "swordfish", 4: "jellyfish"}


def fish(k: int) -> Finder:
    """k base lines whose places for a digit lie in k cover lines: the digit leaves the
    rest of the cover lines. Rows as base first, then columns."""
    name = FISH_NAMES[k]

    def find(board: Board) -> Step | None:
        lay = board.lay
        n, units = lay.n, lay.geo.units
        cands, values = board.cands, board.values
        for digit in range(1, n + 1):
            bit = 1 << (digit - 1)
            for base_kind in (0, 1):  # 0: rows are the base, columns the cover; 1: the reverse
                lines: list[tuple[int, int]] = []
                for i in range(n):
                    where = 0
                    placed = False
                    for j, c in enumerate(units[base_kind * n + i]):
                        if cands[c] & bit:
                            if values[c]:
                                placed = True
                                break
                            where |= 1 << j
                    if not placed and 2 <= where.bit_count() <= k:
                        lines.append((i, where))
                for base, cover in _subsets(lines, k):
                    drops = []
                    for j in bits(cover):
                        for i, c in enumerate(units[(1 - base_kind) * n + j]):
                            if i not in base and not values[c] and cands[c] & bit:
                                drops.append((c, digit))
                    if drops:
                        kinds = ("rows", "columns")
                        why = (
                            f"{name} on {lay.digit(digit)}: {kinds[base_kind]} "
                            f"{', '.join(str(i + 1) for i in base)}, {kinds[1 - base_kind]} "
                            f"{', '.join(str(j + 1) for j in bits(cover))}"
                        )
                        return _eliminate(name, lay, sorted(drops), why)
        return None

    return _named(find, name, f"{name.capitalize()}: fish of size {k} on one digit.")


# --------------------------------------------------------------------------- wings


def _seen_by_all(board: Board, cells: Sequence[Cell], bit: int) -> list[Cell]:
    """Open cells holding ``bit`` that see every one of ``cells`` (and are none of them)."""
    common = reduce(lambda a, b: a & b, (board.lay.peer_bits[c] for c in cells))
    return [c for c in bits(common) if not board.values[c] and board.cands[c] & bit]


def _bivalue(board: Board) -> list[Cell]:
    return [
        c
        for c, (m, v) in enumerate(zip(board.cands, board.values, strict=True))
        if not v and m.bit_count() == 2
    ]


def xy_wing(board: Board) -> Step | None:
    """Pivot {a,b} seeing pincers {a,c} and {b,c}: c leaves the cells seeing both pincers."""
    lay = board.lay
    cands = board.cands
    bivalue = _bivalue(board)
    twos = set(bivalue)
    for pivot in bivalue:
        pm = cands[pivot]
        wings = [p for p in lay.geo.peers[pivot] if p in twos and (cands[p] & pm).bit_count() == 1]
        for i, x in enumerate(wings):
            for y in wings[i + 1 :]:
                cx, cy = cands[x], cands[y]
                if cx & pm == cy & pm or cx & ~pm != cy & ~pm:
                    continue
                z = cx & ~pm
                targets = _seen_by_all(board, (x, y), z)
                if targets:
                    digit = z.bit_length()
                    why = (
                        f"xy-wing: pivot {lay.cell(pivot)} {{{lay.digits(pm)}}}, pincers "
                        f"{lay.cell(x)} {{{lay.digits(cx)}}}, {lay.cell(y)} {{{lay.digits(cy)}}}"
                    )
                    return _eliminate("xy-wing", lay, [(c, digit) for c in targets], why)
    return None


def xyz_wing(board: Board) -> Step | None:
    """Pivot {a,b,c} seeing pincers {a,c} and {b,c}: c leaves the cells seeing all three."""
    lay = board.lay
    cands, values = board.cands, board.values
    twos = set(_bivalue(board))
    for pivot, pm in enumerate(cands):
        if values[pivot] or pm.bit_count() != 3:
            continue
        wings = [p for p in lay.geo.peers[pivot] if p in twos and cands[p] & ~pm == 0]
        for i, x in enumerate(wings):
            for y in wings[i + 1 :]:
                cx, cy = cands[x], cands[y]
                if cx | cy != pm or cx == cy:
                    continue
                z = cx & cy
                targets = _seen_by_all(board, (pivot, x, y), z)
                if targets:
                    digit = z.bit_length()
                    why = (
                        f"xyz-wing: pivot {lay.cell(pivot)} {{{lay.digits(pm)}}}, pincers "
                        f"{lay.cell(x)} {{{lay.digits(cx)}}}, {lay.cell(y)} {{{lay.digits(cy)}}}"
                    )
                    return _eliminate("xyz-wing", lay, [(c, digit) for c in targets], why)
    return None


def strong_links(board: Board) -> list[tuple[int, Digit, Cell, Cell]]:
    """Every (unit, digit, a, b) where digit has exactly the two open places a, b in unit."""
    lay = board.lay
    cands, values = board.cands, board.values
    links = []
    for u, unit in enumerate(lay.geo.units):
        once = twice = thrice = placed = 0
        for c in unit:
            m = cands[c]
            if values[c]:
                placed |= m
            else:
                thrice |= twice & m
                twice |= once & m
                once |= m
        for digit in digits_of(twice & ~thrice & ~placed):
            bit = 1 << (digit - 1)
            a, b = (c for c in unit if cands[c] & bit)
            links.append((u, digit, a, b))
    return links


def w_wing(board: Board) -> Step | None:
    """Two cells {a,b} joined by a strong link on b (each end seeing one of them): a leaves
    the cells seeing both."""
    lay = board.lay
    cands = board.cands
    peer_bits = lay.peer_bits
    bivalue = _bivalue(board)
    links = strong_links(board)
    for i, x in enumerate(bivalue):
        for y in bivalue[i + 1 :]:
            if cands[x] != cands[y] or peer_bits[x] >> y & 1:
                continue
            for link_digit in digits_of(cands[x]):
                other = cands[x] & ~(1 << (link_digit - 1))
                targets = _seen_by_all(board, (x, y), other)
                if not targets:
                    continue
                for u, digit, a, b in links:
                    if digit != link_digit or {a, b} & {x, y}:
                        continue
                    for p, q in ((a, b), (b, a)):
                        if peer_bits[x] >> p & 1 and peer_bits[y] >> q & 1:
                            d = other.bit_length()
                            why = (
                                f"w-wing: {lay.cell(x)}, {lay.cell(y)} {{{lay.digits(cands[x])}}}"
                                f" joined by the strong link on {lay.digit(link_digit)} "
                                f"{lay.cell(p)}={lay.cell(q)} in {lay.unit(u)}"
                            )
                            return _eliminate("w-wing", lay, [(c, d) for c in targets], why)
    return None


# --------------------------------------------------------------------------- single-digit chains


def _turbot_shape(lay: Layout, u1: int, u2: int, y: Cell, p: Cell) -> str:
    """Skyscraper, 2-string kite or turbot fish: by the kinds of the two strong links and of
    the weak link y-p between them."""
    n, geo = lay.n, lay.geo
    k1, k2 = u1 // n, u2 // n  # 0 row, 1 column, 2 box
    if k1 == k2 == 0 and geo.col_of[y] == geo.col_of[p]:
        return "skyscraper"
    if k1 == k2 == 1 and geo.row_of[y] == geo.row_of[p]:
        return "skyscraper"
    if {k1, k2} == {0, 1} and geo.box_of[y] == geo.box_of[p]:
        return "2-string kite"
    return "turbot fish"


def turbot(shape: str) -> Finder:
    """Two strong links on one digit, x=y and p=q, with y seeing p: the digit leaves the
    cells seeing both x and q. ``shape`` picks skyscraper, 2-string kite or turbot fish."""

    def find(board: Board) -> Step | None:
        lay = board.lay
        peer_bits = lay.peer_bits
        by_digit: dict[Digit, list[tuple[int, Cell, Cell]]] = {}
        for u, digit, a, b in strong_links(board):
            by_digit.setdefault(digit, []).append((u, a, b))
        for digit, links in sorted(by_digit.items()):
            bit = 1 << (digit - 1)
            ends = [(u, a, b) for u, a, b in links] + [(u, b, a) for u, a, b in links]
            for u1, x, y in ends:
                for u2, p, q in ends:
                    if len({x, y, p, q}) < 4 or not peer_bits[y] >> p & 1:
                        continue
                    if _turbot_shape(lay, u1, u2, y, p) != shape:
                        continue
                    targets = _seen_by_all(board, (x, q), bit)
                    if targets:
                        d = lay.digit(digit)
                        why = (
                            f"{shape} on {d}: {lay.cell(x)}={lay.cell(y)} in {lay.unit(u1)}, "
                            f"{lay.cell(p)}={lay.cell(q)} in {lay.unit(u2)}"
                        )
                        return _eliminate(shape, lay, [(c, digit) for c in targets], why)
        return None

    return _named(find, shape, f"{shape.capitalize()}: a single-digit chain of two strong links.")


# --------------------------------------------------------------------------- chains
#
# A node is a candidate, numbered (digit - 1) * ncells + cell, so that a set of nodes is one
# int and a digit's nodes are one contiguous block of bits. A strong link joins two nodes of
# which one must be true (a cell's two candidates, a digit's two places in a unit); a weak
# link two that cannot both be true (same digit in peer cells, two candidates of one cell).
# An alternating chain n0 = z1 - y1 = z2 - ... = z proves "n0 or z"; any candidate weakly
# linked to both ends is false.


@dataclass
class _Graph:
    strong: dict[int, int]  # node -> nodes strongly linked to it
    weak: dict[int, int]  # node -> nodes weakly linked to it (for every candidate node)


def _graph(board: Board, bivalue: bool, bilocal: bool, cell_weak: bool) -> _Graph:
    lay = board.lay
    ncells = lay.ncells
    cands, values = board.cands, board.values
    planes = [0] * lay.n
    nodes = 0
    for cell, (mask, value) in enumerate(zip(cands, values, strict=True)):
        if not value:
            for digit in digits_of(mask):
                planes[digit - 1] |= 1 << cell
                nodes |= 1 << ((digit - 1) * ncells + cell)
    strong: dict[int, int] = {}

    def link(a: int, b: int) -> None:
        strong[a] = strong.get(a, 0) | 1 << b
        strong[b] = strong.get(b, 0) | 1 << a

    if bivalue:
        for cell in _bivalue(board):
            d1, d2 = digits_of(cands[cell])
            link((d1 - 1) * ncells + cell, (d2 - 1) * ncells + cell)
    if bilocal:
        for _u, digit, a, b in strong_links(board):
            link((digit - 1) * ncells + a, (digit - 1) * ncells + b)
    weak: dict[int, int] = {}
    peer_bits, cell_nodes = lay.peer_bits, lay.cell_nodes
    for node in bits(nodes):
        k, cell = divmod(node, ncells)
        mask = (peer_bits[cell] & planes[k]) << (k * ncells)
        if cell_weak:
            mask |= cell_nodes[cell] & nodes & ~(1 << node)
        weak[node] = mask
    return _Graph(strong, weak)


def _chain_length(graph: _Graph, n0: int, most: int) -> int:
    """The fewest strong links (at most ``most``) of a chain from ``n0`` that eliminates
    something, or 0."""
    strong, weak = graph.strong, graph.weak
    target = weak[n0]
    off = 1 << n0
    on = frontier = strong[n0]
    length = 1
    while frontier and length <= most:
        reached = 0
        for z in bits(frontier):
            reached |= weak[z]
        if reached & target:
            return length
        reached &= ~off
        off |= reached
        nxt = 0
        for y in bits(reached):
            nxt |= strong.get(y, 0)
        frontier = nxt & ~on
        on |= frontier
        length += 1
    return 0


def _chain_path(graph: _Graph, n0: int, length: int) -> tuple[list[int], int]:
    """A chain n0 = z1 - y1 = ... = z of ``length`` strong links that eliminates something:
    its nodes, and the nodes it eliminates."""
    strong, weak = graph.strong, graph.weak
    target = weak[n0]
    parent: dict[tuple[int, bool], int] = {}
    seen_on: set[int] = set()
    seen_off = {n0}
    frontier = list(bits(strong[n0]))
    for z in frontier:
        parent[(z, True)] = n0
        seen_on.add(z)
    for _ in range(length - 1):
        offs = []
        for z in frontier:
            for y in bits(weak[z]):
                if y not in seen_off:
                    seen_off.add(y)
                    parent[(y, False)] = z
                    offs.append(y)
        frontier = []
        for y in offs:
            for z in bits(strong.get(y, 0)):
                if z not in seen_on:
                    seen_on.add(z)
                    parent[(z, True)] = y
                    frontier.append(z)
    for z in frontier:
        killed = weak[z] & target
        if killed:
            path, node, on = [z], z, True
            while (
                True
            ):  # n0 is never reached as an off node, so an on node's parent n0 is the start
                node = parent[(node, on)]
                path.append(node)
                if on and node == n0:
                    return path[::-1], killed
                on = not on
    raise AssertionError("no chain of the length found")  # pragma: no cover


def chain_text(lay: Layout, path: Sequence[int]) -> str:
    """'(2)r1c1=(8)r1c1-(8)r1c5=(2)r1c5': = for a strong link, - for a weak one."""
    parts = []
    for i, node in enumerate(path):
        k, cell = divmod(node, lay.ncells)
        if i:
            parts.append("=" if i % 2 else "-")
        parts.append(f"({lay.symbols[k]}){lay.cell(cell)}")
    return "".join(parts)


#: Chains longer than this many strong links are not searched.
MAX_CHAIN = 12


def chain(name: str, bivalue: bool, bilocal: bool, cell_weak: bool) -> Finder:
    """The shortest alternating chain of the given kinds of links that eliminates something.

    xy-chain: cell strong links only (bivalue cells), same-digit weak links; x-chain: unit
    strong links only (one digit); aic: both, with weak links inside cells too.
    """

    def find(board: Board) -> Step | None:
        lay = board.lay
        graph = _graph(board, bivalue, bilocal, cell_weak)
        best, best_start = MAX_CHAIN + 1, -1
        for n0 in sorted(graph.strong):
            board.check_time()
            length = _chain_length(graph, n0, best - 1)
            if length:
                best, best_start = length, n0
                if length <= 2:
                    break
        if best_start < 0:
            return None
        path, killed = _chain_path(graph, best_start, best)
        drops = sorted((node % lay.ncells, node // lay.ncells + 1) for node in bits(killed))
        return _eliminate(name, lay, drops, f"{name}: {chain_text(lay, path)}")

    return _named(find, name, f"{name}: the shortest alternating chain that eliminates something.")


# --------------------------------------------------------------------------- forcing chains
#
# Assume one candidate true and follow single links from it: a true node makes every node
# weakly linked to it false, a false node makes its strong partners true. Every implication
# has one premise, so each consequence is reached by one chain. A consequence common to every
# candidate of a cell (or every place of a digit in a unit) holds; an assumption that makes
# some node both true and false is false.


def _consequences(graph: _Graph, node: int) -> tuple[int, int]:
    """(nodes made true, nodes made false) by assuming ``node`` true."""
    strong, weak = graph.strong, graph.weak
    on = frontier = 1 << node
    off = 0
    while frontier:
        reached = 0
        for z in bits(frontier):
            reached |= weak[z]
        reached &= ~off
        off |= reached
        nxt = 0
        for y in bits(reached):
            nxt |= strong.get(y, 0)
        frontier = nxt & ~on
        on |= frontier
    return on, off


def _implication(graph: _Graph, start: int, goal: int, goal_true: bool) -> list[tuple[int, bool]]:
    """The shortest chain of implications from ``start`` true to ``goal`` true/false."""
    strong, weak = graph.strong, graph.weak
    parent: dict[tuple[int, bool], tuple[int, bool]] = {}
    frontier = [(start, True)]
    seen = {(start, True)}
    while frontier:
        nxt = []
        for node, true in frontier:
            if (node, true) == (goal, goal_true):
                path = [(node, true)]
                while path[-1] != (start, True):
                    path.append(parent[path[-1]])
                return path[::-1]
            for other in bits(weak[node] if true else strong.get(node, 0)):
                state = (other, not true)
                if state not in seen:
                    seen.add(state)
                    parent[state] = (node, true)
                    nxt.append(state)
        frontier = nxt
    raise AssertionError("no implication chain found")  # pragma: no cover


def implication_text(lay: Layout, path: Sequence[tuple[int, bool]]) -> str:
    """'r1c1=2 -> r1c5<>2 -> r1c5=8': each node true (=) or false (<>)."""
    parts = []
    for node, true in path:
        k, cell = divmod(node, lay.ncells)
        parts.append(f"{lay.cell(cell)}{'=' if true else '<>'}{lay.symbols[k]}")
    return " -> ".join(parts)


def forcing_chain(board: Board) -> Step | None:
    """Cell and unit forcing chains, then contradiction forcing chains (links as in aic)."""
    lay = board.lay
    ncells = lay.ncells
    cands, values = board.cands, board.values
    graph = _graph(board, bivalue=True, bilocal=True, cell_weak=True)
    known: dict[int, tuple[int, int]] = {}

    def follow(node: int) -> tuple[int, int]:
        if node not in known:
            board.check_time()
            known[node] = _consequences(graph, node)
        return known[node]

    def common(starts: Sequence[int], what: str) -> Step | None:
        ons = offs = -1
        for node in starts:
            on, off = follow(node)
            ons &= on
            offs &= off
            if not ons and not offs:
                return None
        mine = sum(1 << node for node in starts)
        for found, true in ((offs & ~mine, False), (ons & ~mine, True)):
            if found:
                goal = (found & -found).bit_length() - 1
                chains = "; ".join(
                    implication_text(lay, _implication(graph, s, goal, true)) for s in starts
                )
                cell, digit = goal % ncells, goal // ncells + 1
                why = f"{what}: {chains}"
                if true:
                    text = f"{lay.cell(cell)} = {lay.digit(digit)} ({why})"
                    return _step("forcing chain", [(cell, digit)], (), text)
                return _eliminate("forcing chain", lay, [(cell, digit)], why)
        return None

    for cell, (mask, value) in enumerate(zip(cands, values, strict=True)):
        if not value:
            starts = [(d - 1) * ncells + cell for d in digits_of(mask)]
            step = common(starts, f"cell forcing chains from {lay.cell(cell)}")
            if step:
                return step
    for u, unit in enumerate(lay.geo.units):
        placed = reduce(or_, (cands[c] for c in unit if values[c]), 0)
        for digit in digits_of(lay.full & ~placed):
            bit = 1 << (digit - 1)
            starts = [(digit - 1) * ncells + c for c in unit if cands[c] & bit]
            what = f"unit forcing chains from {lay.digit(digit)} in {lay.unit(u)}"
            step = common(starts, what)
            if step:
                return step
    for node in sorted(graph.weak):
        on, off = follow(node)
        clash = on & off
        if clash:
            goal = (clash & -clash).bit_length() - 1
            both = " and ".join(
                implication_text(lay, _implication(graph, node, goal, true))
                for true in (True, False)
            )
            cell, digit = node % ncells, node // ncells + 1
            why = f"contradiction forcing chains: {both}"
            return _eliminate("forcing chain", lay, [(cell, digit)], why)
    return None


# --------------------------------------------------------------------------- the ladder


@dataclass(frozen=True)
class Rule:
    """One rung of the ladder: a strategy's name, level, weight and finder."""

    name: str
    level: int
    weight: float
    find: Finder


#: Cheapest first. See the module docstring for the levels and weights.
LADDER: tuple[Rule, ...] = (
    Rule("hidden single", 0, 1.5, hidden_single),
    Rule("naked single", 0, 2.3, naked_single),
    Rule("pointing", 1, 2.6, pointing),
    Rule("claiming", 1, 2.8, claiming),
    Rule("naked pair", 1, 3.0, naked_subset(2)),
    Rule("hidden pair", 1, 3.4, hidden_subset(2)),
    Rule("naked triple", 2, 3.6, naked_subset(3)),
    Rule("x-wing", 2, 3.8, fish(2)),
    Rule("hidden triple", 2, 4.0, hidden_subset(3)),
    Rule("xy-wing", 2, 4.2, xy_wing),
    Rule("xyz-wing", 2, 4.4, xyz_wing),
    Rule("naked quad", 2, 5.0, naked_subset(4)),
    Rule("hidden quad", 2, 5.4, hidden_subset(4)),
    Rule("skyscraper", 3, 5.6, turbot("skyscraper")),
    Rule("2-string kite", 3, 5.6, turbot("2-string kite")),
    Rule("turbot fish", 3, 5.7, turbot("turbot fish")),
    Rule("swordfish", 3, 5.8, fish(3)),
    Rule("w-wing", 3, 5.9, w_wing),
    Rule("jellyfish", 3, 6.0, fish(4)),
    Rule("xy-chain", 3, 6.2, chain("xy-chain", bivalue=True, bilocal=False, cell_weak=False)),
    Rule("x-chain", 3, 6.3, chain("x-chain", bivalue=False, bilocal=True, cell_weak=False)),
    Rule("aic", 3, 6.6, chain("aic", bivalue=True, bilocal=True, cell_weak=True)),
    Rule("forcing chain", 3, 7.5, forcing_chain),
)

#: Each strategy's level, by name (and the guess's).
LEVELS: dict[str, int] = {rule.name: rule.level for rule in LADDER} | {"guess": GUESS_LEVEL}
#: Each strategy's weight, by name (and the guess's).
WEIGHTS: dict[str, float] = {rule.name: rule.weight for rule in LADDER} | {"guess": GUESS_WEIGHT}


def ladder(max_level: int = 3) -> tuple[Rule, ...]:
    """The rungs of :data:`LADDER` up to ``max_level``."""
    return tuple(rule for rule in LADDER if rule.level <= max_level)


def next_step(board: Board, rules: Sequence[Rule] = LADDER) -> Step | None:
    """The first step the cheapest applicable rule finds, or None when the ladder is stuck."""
    for rule in rules:
        step = rule.find(board)
        if step is not None:
            return step
    return None
