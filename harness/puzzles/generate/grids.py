"""Random complete grids: the solution each generated puzzle is carved from."""

from __future__ import annotations

import random

from backends.puzzle import Puzzle, geometry


def random_grid(box: int, rng: random.Random) -> Puzzle:
    """A random complete grid of box side ``box`` (2..5), drawn only from ``rng``.

    Depth-first search with forward checking over bitmask candidates: the empty cell with
    the fewest candidates first (ties broken by ``rng``), its values in an ``rng`` order. A
    search that exceeds its step budget restarts from scratch with the same ``rng``.
    """
    geo = geometry(box)
    budget = 20 * geo.ncells
    while True:
        grid = _fill(box, rng, budget)
        if grid is not None:
            return Puzzle(box, grid)


def _fill(box: int, rng: random.Random, budget: int) -> tuple[int, ...] | None:
    """One randomized fill attempt; ``None`` when it ran out of ``budget`` steps."""
    geo = geometry(box)
    n, ncells, peers = geo.n, geo.ncells, geo.peers
    grid = [0] * ncells
    cand = [(1 << n) - 1] * ncells
    # Each frame: (cell, values still to try, candidate masks to restore on undo).
    stack: list[tuple[int, list[int], list[int]]] = []
    steps = 0
    while True:
        cell = _most_constrained(grid, cand, rng)
        if cell is None:
            return tuple(grid)
        values = [d + 1 for d in range(n) if cand[cell] >> d & 1]
        rng.shuffle(values)
        stack.append((cell, values, cand[:]))
        # Take the next value of the top frame, undoing frames that have none left.
        while True:
            steps += 1
            if steps > budget or not stack:
                return None
            cell, values, saved = stack[-1]
            cand[:] = saved
            grid[cell] = 0
            if not values:
                stack.pop()
                continue
            digit = values.pop()
            grid[cell] = digit
            bit = ~(1 << (digit - 1))
            dead = False
            for p in peers[cell]:
                if not grid[p]:
                    cand[p] &= bit
                    dead = dead or not cand[p]
            if not dead:
                break


def _most_constrained(grid: list[int], cand: list[int], rng: random.Random) -> int | None:
    """An empty cell with the fewest candidates (``rng`` breaks ties), or None if full."""
    best: list[int] = []
    fewest = 1 << 30
    for cell, digit in enumerate(grid):
        if digit:
            continue
        count = cand[cell].bit_count()
        if count < fewest:
            fewest, best = count, [cell]
        elif count == fewest:
            best.append(cell)
    return rng.choice(best) if best else None
