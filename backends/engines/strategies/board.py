"""The board the strategies read, its per-size tables, and what a strategy returns.

A :class:`Board` holds, per cell of a :class:`~backends.puzzle.Geometry`, the placed digit
(``values``, 0 for an open cell) and the candidate bits (``cands``: bit ``d - 1`` set when
digit ``d`` is possible; a placed cell keeps the one bit of its digit). Placing a digit
removes it from the peers' candidates at once; that clean-up is part of the placement, not
a step of its own.
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
#: A strategy: the first deduction it sees on a board, or None. The second argument is the
#: strategy's name, as the ladder knows it, for the deduction's text.
Finder = Callable[["Board", str], "Deduction | None"]


class TimeUp(Exception):
    """The board's deadline passed while a strategy was searching."""


@dataclass(frozen=True)
class Deduction:
    """What a strategy found: ``(cell, digit)`` pairs to place and to eliminate, and why."""

    placements: tuple[Pair, ...]
    eliminations: tuple[Pair, ...]
    text: str


@dataclass(frozen=True)
class Step:
    """One step of a solve: a strategy's deduction under its name and level (or a guess, or a
    backtrack), with the text that explains it.

    ``placements`` and ``eliminations`` are ``(cell, digit)`` pairs. ``depth`` is the number
    of guesses in force when the step was made (0 before any guess).
    """

    strategy: str
    level: int
    placements: tuple[Pair, ...]
    eliminations: tuple[Pair, ...]
    text: str
    depth: int = 0


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

    def apply(self, step: Deduction | Step) -> str | None:
        """Make a deduction's placements and eliminations; the contradiction met, or None."""
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


def removal_text(lay: Layout, eliminations: Sequence[Pair]) -> str:
    """'remove 4 from r1c7, r1c8; 5 from r2c2': eliminations grouped by digit."""
    by_digit: dict[Digit, list[Cell]] = {}
    for cell, digit in eliminations:
        by_digit.setdefault(digit, []).append(cell)
    parts = [f"{lay.digit(d)} from {lay.cells(cells)}" for d, cells in sorted(by_digit.items())]
    return "remove " + "; ".join(parts)


def placing(lay: Layout, cell: Cell, digit: Digit, why: str) -> Deduction:
    """The deduction that places ``digit`` at ``cell``: 'r3c5 = 7 (why)'."""
    return Deduction(((cell, digit),), (), f"{lay.cell(cell)} = {lay.digit(digit)} ({why})")


def removing(lay: Layout, eliminations: Sequence[Pair], why: str) -> Deduction:
    """The deduction that eliminates ``eliminations``: 'remove 4 from r1c7 (why)'."""
    return Deduction((), tuple(eliminations), f"{removal_text(lay, eliminations)} ({why})")


def bivalue_cells(board: Board) -> list[Cell]:
    """The open cells with exactly two candidates, in index order."""
    return [
        c
        for c, (m, v) in enumerate(zip(board.cands, board.values, strict=True))
        if not v and m.bit_count() == 2
    ]


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
