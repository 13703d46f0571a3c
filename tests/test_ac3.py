"""Tests for the ac3 backend: its four rules, heuristics, counters, statuses and sizes."""

# The project writes `assert expected == actual`, which ruff calls a Yoda condition.

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from backends import make_backend, parse_spec
from backends.ac3 import (
    Ac3Backend,
    hidden_double,
    hidden_single,
    infer,
    naked_double,
    naked_single,
    order_least_placed,
    order_most_placed,
    revise,
    select_fewest,
    select_most,
    shuffled,
)
from backends.base import SolveResult, Status
from backends.engines.search.state import ROOT, check_state, tables
from backends.errors import BackendOptionError
from backends.puzzle import Puzzle
from tests.puzzles import TOP95_FIRST, effort, plain_grid, public_set, solves

UNIT9 = tuple(range(9))
T9 = tables(3)
#: Consistent givens, no solution; root propagation alone cannot refute it (checked with a
#: SAT solver when it was made from a formula grid with one wrong given added).
UNSAT_BY_SEARCH = (
    "12...6.....6........912.......56.8.15...91..4.9.7.4.6.34.6...........3.591..45..."
)


def cands(*cells: str, box: int = 3) -> list[int]:
    """The core's open values for cells 0, 1, ...: '157' holds digits 1, 5 and 7."""
    t = tables(box)
    return [t.open_value(c, sum(1 << (int(d) - 1) for d in cell)) for c, cell in enumerate(cells)]


def blanked(box: int, fraction: float, seed: int = 1) -> Puzzle:
    """The formula grid with ``fraction`` of its cells emptied at random (seeded)."""
    grid = plain_grid(box)
    cells = list(range(len(grid)))
    random.Random(seed).shuffle(cells)
    for cell in cells[: int(fraction * len(grid))]:
        grid[cell] = 0
    return Puzzle.from_digits(tuple(grid))


def solve(puzzle: Puzzle, spec: str = "ac3", **kwargs: object) -> SolveResult:
    backend = Ac3Backend(**parse_spec(spec)[1])
    return backend.solve(backend.encode(puzzle), **kwargs)  # type: ignore[arg-type]


def totals(puzzles: list[Puzzle], spec: str) -> tuple[int, int, int]:
    """Summed (nodes, guesses, backtracks) over ``puzzles`` with limit 1."""
    backend = Ac3Backend(**parse_spec(spec)[1])
    results = [backend.solve(backend.encode(p)) for p in puzzles]
    return (
        sum(r.nodes or 0 for r in results),
        sum(r.guesses or 0 for r in results),
        sum(r.backtracks or 0 for r in results),
    )


# --- the four rules on crafted units ------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "unit", "changed"),
    # A unit's nine cells by their candidates; "157>17" is a cell the rule takes from 157 to 17.
    [
        # Singles 5 and 2 leave the other cells of the unit.
        (naked_single, "5 157>17 59>9 134 1234>134 46789 789 6789 2", [1, 2, 4]),
        # Digit 9 fits only cell 6, which loses its 7 and 8.
        (hidden_single, "12 123 23 145 456 1456 789>9 78 78", [6]),
        # Pairs {1,2} (cells 0,1) and {7,8} (cells 6,7) leave cells 2, 3 and 8.
        (naked_double, "12 12 123>3 1245>45 345 6 78 78 789>9", [2, 3, 8]),
        # Digits 1 and 2 fit only cells 0 and 1, which lose 3, 4 and 5.
        (hidden_double, "1234>12 1235>12 345 345 456 4567 5678 6789 6789", [0, 1]),
        # Digit 9 alone in cells 7 and 8 (8 is in three cells) changes nothing.
        (hidden_double, "123 123 123 456 456 456 78 789 789", []),
    ],
    ids=["naked_single", "hidden_single", "naked_double", "hidden_double", "hidden_double-alone"],
)
def test_each_rule_prunes_its_unit(
    rule: Callable[..., list[int] | None], unit: str, changed: list[int]
) -> None:
    """The rule takes each cell written before>after to after, and returns the cells it changed."""
    cand = cands(*(cell.split(">")[0] for cell in unit.split()))
    assert changed == rule(cand, UNIT9, T9)
    assert cands(*(cell.split(">")[-1] for cell in unit.split())) == cand


def test_revise_runs_hidden_double_only_when_the_other_rules_changed_nothing() -> None:
    """The first revision only strips the single 9; the second applies the hidden pair."""
    cand = cands("1234", "1235", "345", "345", "456", "4567", "5678", "6789", "9")
    assert [7] == revise(cand, UNIT9, T9)
    assert cands("1234", "1235", "345", "345", "456", "4567", "5678", "678", "9") == cand
    assert [0, 1] == revise(cand, UNIT9, T9)
    assert cands("12", "12", "345", "345", "456", "4567", "5678", "678", "9") == cand


@pytest.mark.parametrize(
    ("rule", "cells"),
    [
        (naked_single, ("5", "5", "123", "1234", "46789", "789", "6789", "2", "3")),
        (hidden_single, ("12", "12", "123", "1234", "1234", "1234", "78", "78", "78")),
        (naked_double, ("12", "12", "12", "345", "345", "6", "789", "789", "789")),
        (hidden_double, ("1234", "1235", "456", "456", "456", "6789", "789", "789", "789")),
    ],
)
def test_each_rule_reports_a_contradiction_as_none(rule: object, cells: tuple[str, ...]) -> None:
    """Equal singles, a missing digit, a pair in three cells, three digits for two cells."""
    assert rule(cands(*cells), UNIT9, T9) is None  # type: ignore[operator]


# --- heuristics ---------------------------------------------------------------------------


def small_grid() -> list[int]:
    """4x4 candidates: row 1 is nearly solved, row 2 holds a 3-candidate cell."""
    return cands("1", "2", "34", "234", "1234", "1234", "123", *["1234"] * 9, box=2)


def test_select_fewest_takes_the_lightest_unit_then_its_smallest_cell() -> None:
    """Approach A: row 1 (5 candidates) wins, and its cell r1c3 ({3,4}) is chosen."""
    assert 2 == select_fewest(small_grid(), tables(2))


def test_select_most_takes_the_heaviest_unit_then_its_largest_cell() -> None:
    """Approach B: row 3 (16 candidates, the first such unit) wins, then its first cell."""
    assert 8 == select_most(small_grid(), tables(2))


def test_select_returns_minus_one_when_every_cell_is_solved() -> None:
    """No unsolved cell, no choice: -1, as the core expects."""
    t = tables(2)
    solved = [t.assigned | 1 << (d - 1) for d in plain_grid(2)]
    assert (-1, -1) == (select_fewest(solved, t), select_most(solved, t))


def digits(bits: object) -> list[int]:
    """The digits of a sequence of candidate bits."""
    return [bit.bit_length() for bit in bits]  # type: ignore[attr-defined]


def test_value_orders_follow_how_often_each_digit_is_placed() -> None:
    """Digit 3 placed twice, 1 once, 2 and 4 never: most, least and seeded random orders."""
    t = tables(2)
    cand = cands("3", "3", "1", *["1234"] * 13, box=2)
    assert [3, 1, 2, 4] == digits(order_most_placed(cand, 5, t))
    assert [2, 4, 1, 3] == digits(order_least_placed(cand, 5, t))
    once = digits(shuffled(random.Random(7))(cand, 5, t))
    assert ([1, 2, 3, 4], once) == (sorted(once), digits(shuffled(random.Random(7))(cand, 5, t)))


def test_infer_at_the_root_keeps_the_core_state_well_formed() -> None:
    """After AC-3 on a top95 puzzle every value still has the right count and cell fields."""
    start = Ac3Backend().encode(Puzzle.parse(TOP95_FIRST))
    state = list(start.cands)
    assert infer(state, ROOT, 0, start.tables)
    assert check_state(state, start.tables) is None


# --- options ------------------------------------------------------------------------------


def test_options_parse_from_a_spec() -> None:
    """select and order are case-insensitive; seed is an int; spec shows non-defaults."""
    backend = Ac3Backend(**parse_spec("ac3:select=b,order=LEAST,seed=5")[1])
    assert {"select": "B", "order": "least", "seed": 5} == backend.config
    assert "ac3:select=B,order=least,seed=5" == backend.spec


def test_bad_option_value_is_refused() -> None:
    """select=C is not a choice."""
    with pytest.raises(BackendOptionError, match="select"):
        Ac3Backend(select="C")


# --- statuses, limits, counters -----------------------------------------------------------


def test_propagation_alone_scores_one_node() -> None:
    """A puzzle AC-3 solves at the root: 1 node, no guess, no backtrack."""
    puzzle = blanked(3, 0.3)
    result = solve(puzzle)
    assert (Status.SOLVED, 1, 0, 0) == effort(result)
    assert solves(puzzle, result.solution)


def test_conflicting_givens_are_unsat_at_the_root() -> None:
    """Two 1s in row 1: UNSAT after one node."""
    puzzle = Puzzle.parse("11" + "." * 79)
    result = solve(puzzle)
    assert (Status.UNSAT, 1, 0, 0) == effort(result)
    assert result.solution is None


def test_unsat_found_by_search_counts_both_failed_values() -> None:
    """One branch point, two values tried, both dead ends."""
    assert (Status.UNSAT, 3, 1, 2) == effort(solve(Puzzle.parse(UNSAT_BY_SEARCH)))


def test_limit_two_counts_two_solutions_of_an_empty_grid() -> None:
    """An empty 4x4 grid has many solutions: limit 2 finds two, limit 1 finds one."""
    empty = Puzzle.parse("." * 16)
    two, one = solve(empty, limit=2), solve(empty, limit=1)
    assert (Status.SOLVED, 2, Status.SOLVED, 1) == (
        two.status,
        two.solutions_found,
        one.status,
        one.solutions_found,
    )
    assert solves(empty, two.solution)


def test_time_limit_zero_times_out_before_the_first_branch() -> None:
    """With no time left, the root's first clock check stops the search."""
    result = solve(Puzzle.parse(UNSAT_BY_SEARCH), time_limit=0.0)
    assert (Status.TIMEOUT, None, 1) == (result.status, result.solution, result.nodes)


@pytest.mark.parametrize(("box", "fraction"), [(2, 0.6), (3, 0.6), (4, 0.6), (5, 0.5)])
def test_every_size_is_solved(box: int, fraction: float) -> None:
    """4x4, 9x9, 16x16 and 25x25 puzzles blanked from a formula grid."""
    puzzle = blanked(box, fraction)
    result = solve(puzzle)
    assert Status.SOLVED == result.status
    assert solves(puzzle, result.solution)


# --- public datasets ----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", ["top95", "hardest", "easy50"])
def test_norvig_sets_are_solved_and_unique(name: str) -> None:
    """Every puzzle solved, checked independently, and proved unique with limit 2."""
    puzzles = public_set(f"norvig-{name}.txt")
    backend = Ac3Backend()
    results = [backend.solve(backend.encode(p), limit=2) for p in puzzles]
    assert [Status.SOLVED] * len(puzzles) == [r.status for r in results]
    assert [1] * len(puzzles) == [r.solutions_found for r in results]
    bad = [
        i
        for i, (p, r) in enumerate(zip(puzzles, results, strict=True))
        if not solves(p, r.solution)
    ]
    assert [] == bad


@pytest.mark.slow
def test_top95_effort_totals_for_default_options() -> None:
    """Regression figure: 1,478 nodes (seed author: 2,540), 753 guesses, 1,080 backtracks."""
    assert (1478, 753, 1080) == totals(public_set("norvig-top95.txt"), "ac3")


@pytest.mark.slow
def test_value_orders_and_selections_give_different_repeatable_counts() -> None:
    """A-1 vs A-2 and A vs B differ on top95, and each repeats exactly."""
    puzzles = public_set("norvig-top95.txt")
    specs = ["ac3", "ac3:order=least", "ac3:select=B"]
    first = [totals(puzzles, spec) for spec in specs]
    again = [totals(puzzles, spec) for spec in specs]
    assert first == again
    assert [(1478, 753, 1080), (1460, 755, 1062), (5235, 1338, 4897)] == first


@pytest.mark.slow
def test_random_order_repeats_with_a_fixed_seed() -> None:
    """order=random: the same seed gives the same per-puzzle counts; another seed differs."""
    puzzles = public_set("norvig-hardest.txt")

    def nodes(spec: str) -> list[int | None]:
        backend = Ac3Backend(**parse_spec(spec)[1])
        return [backend.solve(backend.encode(p)).nodes for p in puzzles]

    seed0 = nodes("ac3:order=random,seed=0")
    assert seed0 == nodes("ac3:order=random,seed=0")
    assert seed0 != nodes("ac3:order=random,seed=1")


def test_registered_as_ac3() -> None:
    """The registry builds ac3 from a spec."""
    assert Ac3Backend is type(make_backend("ac3:order=least"))
