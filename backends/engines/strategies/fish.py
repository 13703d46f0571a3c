"""Intersections and fish: pointing and claiming (locked candidates); x-wing, swordfish and
jellyfish."""

from __future__ import annotations

from functools import reduce
from operator import or_

from backends.engines.strategies.board import Board, Deduction, Finder, bits, digits_of, removing
from backends.engines.strategies.subsets import subsets


def _locked(board: Board, name: str, claiming: bool) -> Deduction | None:
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
                inside_of, only_in = (line, box) if claiming else (box, line)
                why = f"{name}: in {inside_of}, {d} lies only in {only_in}"
                return removing(lay, [(c, digit) for c in cells], why)
    return None


def pointing(board: Board, name: str) -> Deduction | None:
    """Locked candidates type 1: a digit confined to one line within a box leaves the line."""
    return _locked(board, name, claiming=False)


def claiming(board: Board, name: str) -> Deduction | None:
    """Locked candidates type 2: a digit confined to one box within a line leaves the box."""
    return _locked(board, name, claiming=True)


def fish(k: int) -> Finder:
    """k base lines whose places for a digit lie in k cover lines: the digit leaves the
    rest of the cover lines. Rows as base first, then columns."""

    def find(board: Board, name: str) -> Deduction | None:
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
                for base, cover in subsets(lines, k):
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
                        return removing(lay, sorted(drops), why)
        return None

    return find
