"""Chains: alternating inference chains (xy-chain, x-chain, aic) and forcing chains.

A node is a candidate, numbered (digit - 1) * ncells + cell, so that a set of nodes is one
int and a digit's nodes are one contiguous block of bits. A strong link joins two nodes of
which one must be true (a cell's two candidates, a digit's two places in a unit); a weak
link two that cannot both be true (same digit in peer cells, two candidates of one cell).
An alternating chain n0 = z1 - y1 = z2 - ... = z proves "n0 or z"; any candidate weakly
linked to both ends is false.

Forcing chains assume one candidate true and follow single links from it: a true node makes
every node weakly linked to it false, a false node makes its strong partners true. Every
implication has one premise, so each consequence is reached by one chain. A consequence
common to every candidate of a cell (or every place of a digit in a unit) holds; an
assumption that makes some node both true and false is false.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import reduce
from operator import or_

from backends.engines.strategies.board import (
    Board,
    Deduction,
    Finder,
    Layout,
    bits,
    bivalue_cells,
    digits_of,
    placing,
    removing,
    strong_links,
)


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
        for cell in bivalue_cells(board):
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


def _linked(links: dict[int, int], nodes: int) -> int:
    """The nodes that ``links`` join to any of ``nodes``."""
    joined = 0
    for node in bits(nodes):
        joined |= links.get(node, 0)
    return joined


def _chain_length(graph: _Graph, n0: int, most: int) -> int:
    """The fewest strong links (at most ``most``) of a chain from ``n0`` that eliminates
    something, or 0."""
    strong, weak = graph.strong, graph.weak
    target = weak[n0]
    off = 1 << n0
    on = frontier = strong[n0]
    length = 1
    while frontier and length <= most:
        reached = _linked(weak, frontier)
        if reached & target:
            return length
        reached &= ~off
        off |= reached
        frontier = _linked(strong, reached) & ~on
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


def chain(bivalue: bool, bilocal: bool, cell_weak: bool) -> Finder:
    """The shortest alternating chain of the given kinds of links that eliminates something.

    xy-chain: cell strong links only (bivalue cells), same-digit weak links; x-chain: unit
    strong links only (one digit); aic: both, with weak links inside cells too.
    """

    def find(board: Board, name: str) -> Deduction | None:
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
        return removing(lay, drops, f"{name}: {chain_text(lay, path)}")

    return find


def _consequences(graph: _Graph, node: int) -> tuple[int, int]:
    """(nodes made true, nodes made false) by assuming ``node`` true."""
    strong, weak = graph.strong, graph.weak
    on = frontier = 1 << node
    off = 0
    while frontier:
        reached = _linked(weak, frontier) & ~off
        off |= reached
        frontier = _linked(strong, reached) & ~on
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


@dataclass
class _Forcing:
    """One board's forcing-chain search: the link graph and each assumption's consequences."""

    board: Board
    graph: _Graph
    known: dict[int, tuple[int, int]] = field(default_factory=dict)

    def follow(self, node: int) -> tuple[int, int]:
        """(nodes made true, nodes made false) by assuming ``node`` true; each worked out once."""
        if node not in self.known:
            self.board.check_time()
            self.known[node] = _consequences(self.graph, node)
        return self.known[node]

    def common(self, starts: Sequence[int], what: str) -> Deduction | None:
        """What every one of ``starts`` (of which one is true) implies alike, or None."""
        lay, graph = self.board.lay, self.graph
        ons = offs = -1
        for node in starts:
            on, off = self.follow(node)
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
                cell, digit = goal % lay.ncells, goal // lay.ncells + 1
                why = f"{what}: {chains}"
                if true:
                    return placing(lay, cell, digit, why)
                return removing(lay, [(cell, digit)], why)
        return None

    def cells(self) -> Deduction | None:
        """Cell forcing chains: from every candidate of an open cell."""
        lay, ncells = self.board.lay, self.board.lay.ncells
        for cell, (mask, value) in enumerate(zip(self.board.cands, self.board.values, strict=True)):
            if not value:
                starts = [(d - 1) * ncells + cell for d in digits_of(mask)]
                found = self.common(starts, f"cell forcing chains from {lay.cell(cell)}")
                if found:
                    return found
        return None

    def units(self) -> Deduction | None:
        """Unit forcing chains: from every place of a digit in a unit."""
        lay, ncells = self.board.lay, self.board.lay.ncells
        cands, values = self.board.cands, self.board.values
        for u, unit in enumerate(lay.geo.units):
            placed = reduce(or_, (cands[c] for c in unit if values[c]), 0)
            for digit in digits_of(lay.full & ~placed):
                bit = 1 << (digit - 1)
                starts = [(digit - 1) * ncells + c for c in unit if cands[c] & bit]
                what = f"unit forcing chains from {lay.digit(digit)} in {lay.unit(u)}"
                found = self.common(starts, what)
                if found:
                    return found
        return None

    def contradictions(self) -> Deduction | None:
        """Contradiction forcing chains: a candidate that makes some node both true and false."""
        lay, ncells = self.board.lay, self.board.lay.ncells
        for node in sorted(self.graph.weak):
            on, off = self.follow(node)
            clash = on & off
            if clash:
                goal = (clash & -clash).bit_length() - 1
                both = " and ".join(
                    implication_text(lay, _implication(self.graph, node, goal, true))
                    for true in (True, False)
                )
                cell, digit = node % ncells, node // ncells + 1
                why = f"contradiction forcing chains: {both}"
                return removing(lay, [(cell, digit)], why)
        return None


def forcing_chain(board: Board, name: str) -> Deduction | None:
    """Cell and unit forcing chains, then contradiction forcing chains (links as in aic).

    The texts name the kind of forcing chain, so ``name`` is not used.
    """
    search = _Forcing(board, _graph(board, bivalue=True, bilocal=True, cell_weak=True))
    return search.cells() or search.units() or search.contradictions()
