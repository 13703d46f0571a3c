"""Wings: xy-wing, xyz-wing and w-wing, and the single-digit chains of two strong links
(skyscraper, 2-string kite, turbot fish)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce

from backends.engines.strategies.board import (
    Board,
    Cell,
    Deduction,
    Digit,
    Layout,
    bits,
    bivalue_cells,
    digits_of,
    removing,
    strong_links,
)


def _seen_by_all(board: Board, cells: Sequence[Cell], bit: int) -> list[Cell]:
    """Open cells holding ``bit`` that see every one of ``cells`` (and are none of them)."""
    common = reduce(lambda a, b: a & b, (board.lay.peer_bits[c] for c in cells))
    return [c for c in bits(common) if not board.values[c] and board.cands[c] & bit]


def _wing(
    board: Board, name: str, cells: tuple[Cell, Cell, Cell], z: int, targets: Sequence[Cell]
) -> Deduction:
    """The xy- or xyz-wing of pivot and pincers ``cells``: digit ``z`` leaves ``targets``."""
    lay, cands = board.lay, board.cands
    pivot, x, y = cells
    why = (
        f"{name}: pivot {lay.cell(pivot)} {{{lay.digits(cands[pivot])}}}, pincers "
        f"{lay.cell(x)} {{{lay.digits(cands[x])}}}, {lay.cell(y)} {{{lay.digits(cands[y])}}}"
    )
    return removing(lay, [(c, z.bit_length()) for c in targets], why)


def xy_wing(board: Board, name: str) -> Deduction | None:
    """Pivot {a,b} seeing pincers {a,c} and {b,c}: c leaves the cells seeing both pincers."""
    lay = board.lay
    cands = board.cands
    bivalue = bivalue_cells(board)
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
                    return _wing(board, name, (pivot, x, y), z, targets)
    return None


def xyz_wing(board: Board, name: str) -> Deduction | None:
    """Pivot {a,b,c} seeing pincers {a,c} and {b,c}: c leaves the cells seeing all three."""
    lay = board.lay
    cands, values = board.cands, board.values
    twos = set(bivalue_cells(board))
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
                    return _wing(board, name, (pivot, x, y), z, targets)
    return None


def w_wing(board: Board, name: str) -> Deduction | None:
    """Two cells {a,b} joined by a strong link on b (each end seeing one of them): a leaves
    the cells seeing both."""
    lay = board.lay
    cands = board.cands
    peer_bits = lay.peer_bits
    bivalue = bivalue_cells(board)
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
                                f"{name}: {lay.cell(x)}, {lay.cell(y)} {{{lay.digits(cands[x])}}}"
                                f" joined by the strong link on {lay.digit(link_digit)} "
                                f"{lay.cell(p)}={lay.cell(q)} in {lay.unit(u)}"
                            )
                            return removing(lay, [(c, d) for c in targets], why)
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


def turbot(board: Board, name: str) -> Deduction | None:
    """Two strong links on one digit, x=y and p=q, with y seeing p: the digit leaves the
    cells seeing both x and q. ``name`` is the shape: skyscraper, 2-string kite or turbot
    fish."""
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
                if _turbot_shape(lay, u1, u2, y, p) != name:
                    continue
                targets = _seen_by_all(board, (x, q), bit)
                if targets:
                    d = lay.digit(digit)
                    why = (
                        f"{name} on {d}: {lay.cell(x)}={lay.cell(y)} in {lay.unit(u1)}, "
                        f"{lay.cell(p)}={lay.cell(q)} in {lay.unit(u2)}"
                    )
                    return removing(lay, [(c, digit) for c in targets], why)
    return None
