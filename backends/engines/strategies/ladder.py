"""The logic ladder: the strategies cheapest first, each with its level and weight.

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
:data:`GUESS_WEIGHT` (10.0) is what a guess weighs. See :mod:`harness.puzzles.rating` for the score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from backends.engines.strategies.board import Board, Finder, Step
from backends.engines.strategies.chains import chain, forcing_chain
from backends.engines.strategies.fish import claiming, fish, pointing
from backends.engines.strategies.subsets import (
    hidden_single,
    hidden_subset,
    naked_single,
    naked_subset,
)
from backends.engines.strategies.wings import turbot, w_wing, xy_wing, xyz_wing

#: The level of a guess (Zambon records a backtrack as strategy 40 + depth: level 4).
GUESS_LEVEL = 4
#: The weight of a guess on the score scale (above every strategy of the ladder).
GUESS_WEIGHT = 10.0


@dataclass(frozen=True)
class Rule:
    """One rung of the ladder: a strategy's name, level, weight and finder."""

    name: str
    level: int
    weight: float
    find: Finder

    def apply(self, board: Board) -> Step | None:
        """The first deduction this rule finds on ``board``, as a step under its name and level."""
        found = self.find(board, self.name)
        if found is None:
            return None
        return Step(self.name, self.level, found.placements, found.eliminations, found.text)


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
    Rule("skyscraper", 3, 5.6, turbot),
    Rule("2-string kite", 3, 5.6, turbot),
    Rule("turbot fish", 3, 5.7, turbot),
    Rule("swordfish", 3, 5.8, fish(3)),
    Rule("w-wing", 3, 5.9, w_wing),
    Rule("jellyfish", 3, 6.0, fish(4)),
    Rule("xy-chain", 3, 6.2, chain(bivalue=True, bilocal=False, cell_weak=False)),
    Rule("x-chain", 3, 6.3, chain(bivalue=False, bilocal=True, cell_weak=False)),
    Rule("aic", 3, 6.6, chain(bivalue=True, bilocal=True, cell_weak=True)),
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
        step = rule.apply(board)
        if step is not None:
            return step
    return None
