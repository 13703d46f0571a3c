"""Singles and subsets: hidden and naked singles, naked and hidden pairs, triples and quads."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from backends.engines.strategies.board import (
    Board,
    Deduction,
    Finder,
    bits,
    digits_of,
    placing,
    removing,
)


def hidden_single(board: Board, name: str) -> Deduction | None:
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
            return placing(lay, cell, bit.bit_length(), f"{name} in {lay.unit(u)}")
    return None


def naked_single(board: Board, name: str) -> Deduction | None:
    """An open cell with one candidate left."""
    lay = board.lay
    for cell, (mask, value) in enumerate(zip(board.cands, board.values, strict=True)):
        if not value and mask and not mask & (mask - 1):
            return placing(lay, cell, mask.bit_length(), name)
    return None


def subsets(items: Sequence[tuple[int, int]], k: int) -> Iterator[tuple[tuple[int, ...], int]]:
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


def naked_subset(k: int) -> Finder:
    """k open cells of a unit holding only k digits between them: the digits leave the unit."""

    def find(board: Board, name: str) -> Deduction | None:
        lay = board.lay
        cands, values = board.cands, board.values
        for u, unit in enumerate(lay.geo.units):
            open_cells = [c for c in unit if not values[c]]
            if len(open_cells) <= k:
                continue
            small = [(c, cands[c]) for c in open_cells if 2 <= cands[c].bit_count() <= k]
            for cells, union in subsets(small, k):
                drops = [
                    (c, d)
                    for c in open_cells
                    if c not in cells and cands[c] & union
                    for d in digits_of(cands[c] & union)
                ]
                if drops:
                    why = f"{name} {lay.digits(union)} in {lay.cells(cells)} of {lay.unit(u)}"
                    return removing(lay, drops, why)
        return None

    return find


def hidden_subset(k: int) -> Finder:
    """k digits confined to the same k cells of a unit: those cells lose every other digit."""

    def find(board: Board, name: str) -> Deduction | None:
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
            for found, where in subsets(places, k):
                keep = sum(1 << (d - 1) for d in found)
                cells = [unit[i] for i in bits(where)]
                drops = [(c, d) for c in cells for d in digits_of(cands[c] & ~keep)]
                if drops:
                    why = f"{name} {lay.digits(keep)} in {lay.cells(cells)} of {lay.unit(u)}"
                    return removing(lay, drops, why)
        return None

    return find
