"""Tests of the shared search core, backends/engines/search/."""

from __future__ import annotations

import time

import pytest

from backends.base import Status
from backends.engines.search.backend import select_option
from backends.engines.search.core import iterative, recursive, search, solve
from backends.engines.search.heuristics import (
    INFERENCES,
    SELECTS,
    ascending,
    bits_of,
    first,
    max_candidates,
    mrv,
)
from backends.engines.search.propagation import (
    HIDDEN_PAIRS,
    NAKED_PAIRS,
    PAIRS,
    check,
    forward,
    locked_candidates,
    singles,
    with_locked,
    with_pairs,
)
from backends.engines.search.state import (
    ROOT,
    SearchTables,
    Start,
    check_state,
    initial_state,
    tables,
)
from backends.puzzle import Puzzle
from harness.check.checker import check_solution
from tests.puzzles import EASY_FIRST, NO_PLACE_FOR_8, TOP95_FIRST, effort


def state_of(text: str) -> tuple[list[int], Start]:
    """The mutable root state of a puzzle, and its Start."""
    start = initial_state(Puzzle.parse(text))
    return list(start.cands), start


def test_tables_pack_count_cell_and_bits() -> None:
    """An open value carries its count, its cell and its candidate bits."""
    t = tables(3)
    value = t.open_value(40, 0b101000010)
    assert (3, 40, 0b101000010) == (t.count(value), t.cell_of(value), value & t.full)


def test_tables_assigned_values_sort_above_every_open_value() -> None:
    """Every assigned value is larger than any open value."""
    t = tables(5)
    assert t.assigned | 1 > t.open_value(t.ncells - 1, t.full)


def test_initial_state_assigns_givens_and_filters_candidates() -> None:
    """Givens are assigned; an empty cell keeps the digits its peers' givens leave."""
    cands, start = state_of(EASY_FIRST)
    t = start.tables
    assert (t.assigned | 1 << 2, 3) == (cands[2], t.digit(cands[2]))
    # r1c1 sees 3, 2, 6 in its row, 9, 7, 8 in its column and 1 in its box: 4 or 5 remain.
    assert t.open_value(0, 0b000011000) == cands[0]


def test_initial_state_is_well_formed() -> None:
    """The root state passes check_state."""
    cands, start = state_of(TOP95_FIRST)
    assert check_state(cands, start.tables) is None


def test_check_state_reports_a_wrong_count() -> None:
    """check_state names a value whose count field disagrees with its bits."""
    cands, start = state_of(TOP95_FIRST)
    cands[1] += start.tables.one
    assert (check_state(cands, start.tables) or "").startswith("cell 1:")


def test_initial_state_makes_a_repeated_given_a_dead_cell() -> None:
    """A given repeating a peer's given becomes a cell with no candidates."""
    start = initial_state(Puzzle.parse("11" + "." * 79))
    assert 0 == start.tables.count(start.cands[0])


def test_mrv_picks_the_first_cell_with_fewest_candidates() -> None:
    """mrv breaks ties on the lowest cell index."""
    t = tables(2)
    cands = [t.open_value(c, 0b1111) for c in range(16)]
    cands[9] = t.open_value(9, 0b0011)
    cands[5] = t.open_value(5, 0b0110)
    cands[2] = t.assigned | 1
    assert 5 == mrv(cands, t)


def test_first_skips_assigned_cells() -> None:
    """first returns the lowest-index unassigned cell."""
    t = tables(2)
    cands = [t.assigned | 1] * 3 + [t.open_value(c, 0b1111) for c in range(3, 16)]
    assert 3 == first(cands, t)


def test_max_candidates_picks_the_first_cell_with_most_candidates() -> None:
    """max_candidates breaks ties on the lowest cell index."""
    t = tables(2)
    cands = [t.open_value(c, 0b0011) for c in range(16)]
    cands[7] = t.open_value(7, 0b0111)
    cands[11] = t.open_value(11, 0b1011)
    assert 7 == max_candidates(cands, t)


@pytest.mark.parametrize("select", [first, mrv, max_candidates])
def test_selections_return_minus_one_when_all_assigned(select: object) -> None:
    """Every selection rule reports a complete state with -1."""
    t = tables(2)
    assert -1 == select([t.assigned | 1] * 16, t)  # type: ignore[operator]


def test_ascending_lists_candidate_bits_low_first() -> None:
    """ascending yields the candidate bits in increasing digit order."""
    t = tables(3)
    assert (0b10, 0b1000, 0b100000000) == tuple(ascending([t.open_value(0, 0b100001010)], 0, t))


def test_bits_of_zero_is_empty() -> None:
    """A mask without bits has nothing to try."""
    assert () == bits_of(0)


def test_forward_removes_the_digit_from_peers_only() -> None:
    """forward checking drops the digit from every peer's candidates and keeps the counts."""
    cands, start = state_of("." * 81)
    t = start.tables
    cands[0] = t.assigned | 1
    assert forward(cands, 0, 1, t)
    expected = [c for c in range(81) if c and not cands[c] & 1]
    assert (list(t.peers[0]), None) == (expected, check_state(cands, t))


def test_forward_fails_when_a_peer_empties() -> None:
    """Assigning a peer's last candidate is refuted."""
    cands, start = state_of(NO_PLACE_FOR_8)
    t = start.tables
    cands[7] = t.assigned | 1 << 8
    assert forward(cands, 7, 1 << 8, t) is False


def test_check_refuses_a_digit_an_assigned_peer_holds() -> None:
    """check refutes a value equal to an assigned peer's value."""
    cands, start = state_of(EASY_FIRST)
    t = start.tables
    cands[0] = t.assigned | 1 << 2  # a 3, as the given in r1c3
    assert check(cands, 0, 1 << 2, t) is False


def test_check_leaves_candidates_untouched() -> None:
    """check accepts a legal value and prunes nothing."""
    cands, start = state_of(EASY_FIRST)
    t = start.tables
    before = list(cands)
    cands[0] = t.assigned | 1 << 3  # a 4, one of r1c1's candidates
    assert check(cands, 0, 1 << 3, t)
    assert before[1:] == cands[1:]


def test_singles_at_root_reaches_a_fixpoint() -> None:
    """After singles no open cell has one candidate and no digit has one open place."""
    cands, start = state_of(TOP95_FIRST)
    t = start.tables
    assert singles(cands, ROOT, 0, t)
    assert all(t.count(m) >= 2 for m in cands if m < t.assigned)
    for unit in t.units:
        for bit in bits_of(t.full):
            places = [p for p in unit if cands[p] & bit]
            assert len(places) >= 2 or cands[places[0]] >= t.assigned
    assert check_state(cands, t) is None


def test_singles_solves_an_easy_puzzle_at_the_root() -> None:
    """Propagation alone fills every cell of easy50's first puzzle."""
    cands, start = state_of(EASY_FIRST)
    assert singles(cands, ROOT, 0, start.tables)
    assert -1 == first(cands, start.tables)


def test_singles_finds_a_digit_with_no_place() -> None:
    """singles refutes a state where 8 has no place in row 1."""
    cands, start = state_of(NO_PLACE_FOR_8)
    assert singles(cands, ROOT, 0, start.tables) is False


def test_search_counts_a_refuted_value_as_a_node_and_a_backtrack() -> None:
    """Both open cells of row 1 need a 9: one node tried, refuted, UNSAT."""
    assert (Status.UNSAT, 2, 0, 1) == effort(search(initial_state(Puzzle.parse(NO_PLACE_FOR_8))))


def test_search_dead_root_is_unsat_with_one_node() -> None:
    """Givens in conflict are UNSAT at the root."""
    assert (Status.UNSAT, 1, 0, 0) == effort(search(initial_state(Puzzle.parse("11" + "." * 79))))


def test_search_complete_grid_is_one_node() -> None:
    """A full valid grid is solved at the root."""
    grid = "".join(str((r % 3 * 3 + r // 3 + c) % 9 + 1) for r in range(9) for c in range(9))
    outcome = search(initial_state(Puzzle.parse(grid)), limit=2)
    assert (Status.SOLVED, 1, (Puzzle.parse(grid).cells,)) == (
        outcome.status,
        outcome.nodes,
        outcome.solutions,
    )


def test_search_first_solution_backtracks_off_the_solution_path() -> None:
    """With limit 1, every tried value not on the path to the solution is a backtrack."""
    outcome = search(initial_state(Puzzle.parse(TOP95_FIRST)))
    empty = TOP95_FIRST.count(".")
    assert outcome.nodes - 1 - empty == outcome.backtracks


def test_search_counts_guesses_only_at_branch_points() -> None:
    """mrv with forward checking on the first top95 puzzle: 482 nodes, 68 guesses."""
    outcome = search(initial_state(Puzzle.parse(TOP95_FIRST)))
    assert (482, 68, 482 - 1 - 64) == (outcome.nodes, outcome.guesses, outcome.backtracks)


def test_search_limit_two_backtracks_every_tried_value_when_unique() -> None:
    """Counting to two on a unique puzzle undoes every tried value."""
    outcome = search(initial_state(Puzzle.parse(TOP95_FIRST)), limit=2)
    assert (Status.SOLVED, 1, outcome.nodes - 1) == (
        outcome.status,
        len(outcome.solutions),
        outcome.backtracks,
    )


def test_search_refuses_a_limit_below_one() -> None:
    """limit 0 is a caller error."""
    with pytest.raises(ValueError, match="limit"):
        search(initial_state(Puzzle.parse(EASY_FIRST)), limit=0)


def test_search_past_deadline_times_out_with_counters() -> None:
    """A deadline already passed stops the search before its first value: only the root."""
    outcome = search(initial_state(Puzzle.parse(TOP95_FIRST)), deadline=time.perf_counter() - 1)
    assert (Status.TIMEOUT, (), 1) == (outcome.status, outcome.solutions, outcome.nodes)


@pytest.mark.parametrize("select", sorted(SELECTS))
@pytest.mark.parametrize("inference", sorted(INFERENCES))
def test_every_combination_solves_a_4x4(select: str, inference: str) -> None:
    """Each select x inference pair finds the one solution of a 4x4 puzzle."""
    outcome = search(
        initial_state(Puzzle.parse(".2.43......14.2.")),
        select=SELECTS[select],
        inference=INFERENCES[inference],
        limit=2,
    )
    expected = Puzzle.parse("1234341223414123").cells
    assert (Status.SOLVED, (expected,)) == (outcome.status, outcome.solutions)


# --- drivers, root inference, the solve helper ---------------------------------------------


@pytest.mark.parametrize("limit", [1, 2])
def test_recursive_and_iterative_drivers_walk_the_same_tree(limit: int) -> None:
    """Both drivers give the same outcome, counters included."""
    start = initial_state(Puzzle.parse(TOP95_FIRST))
    assert search(start, limit=limit, driver=iterative) == search(
        start, limit=limit, driver=recursive
    )


def test_recursive_driver_reaches_the_depth_of_a_25x25() -> None:
    """A 25x25 puzzle with 500 empty cells is solved, and checked, under recursion."""
    box, n = 5, 25
    grid = [(r % box * box + r // box + c) % n + 1 for r in range(n) for c in range(n)]
    puzzle = Puzzle(box, tuple(0 if (3 * cell) % 5 else d for cell, d in enumerate(grid)))
    outcome = search(initial_state(puzzle), driver=recursive)
    assert (Status.SOLVED, None) == (
        outcome.status,
        check_solution(puzzle.cells, outcome.solutions[0]),
    )


def test_root_inference_runs_only_at_the_root() -> None:
    """root=singles with inference=check: easy50's first puzzle is solved at the root."""
    outcome = search(initial_state(Puzzle.parse(EASY_FIRST)), first, ascending, check, root=singles)
    assert (Status.SOLVED, 1) == (outcome.status, outcome.nodes)


def test_solve_reports_a_timeout_with_a_message() -> None:
    """The backend-facing helper turns a passed deadline into TIMEOUT with its reason."""
    result = solve(initial_state(Puzzle.parse(TOP95_FIRST)), 1, 0.0)
    assert (Status.TIMEOUT, 1, "time limit 0.0s reached after 0 solution(s)") == (
        result.status,
        result.nodes,
        result.message,
    )


def test_select_option_offers_every_selection() -> None:
    """The shared select option lists the core's selections and keeps its default."""
    option = select_option("first")
    assert ("select", "first", tuple(SELECTS)) == (option.name, option.default, option.choices)


# --- pair rules and locked candidates --------------------------------------------------------


def open_grid() -> tuple[list[int], SearchTables]:
    """An empty 9x9 state: every cell open with every digit."""
    start = initial_state(Puzzle.parse("." * 81))
    return list(start.cands), start.tables


def drop(cands: list[int], t: SearchTables, cells: object, digits: int) -> None:
    """Remove the candidate bits ``digits`` from each of ``cells``."""
    for c in cells:  # type: ignore[attr-defined]
        cands[c] = t.open_value(c, cands[c] & t.full & ~digits)


def test_hidden_pairs_keep_two_digits_in_their_two_cells() -> None:
    """Digits 1 and 2 fit only r1c1 and r1c2: those cells drop their other digits."""
    cands, t = open_grid()
    drop(cands, t, range(2, 9), 0b11)
    assert with_pairs(HIDDEN_PAIRS)(cands, ROOT, 0, t)
    assert (0b11, 0b11, None) == (cands[0] & t.full, cands[1] & t.full, check_state(cands, t))


def test_singles_alone_leave_a_hidden_pair_alone() -> None:
    """Without the pair rule, r1c1 keeps all nine digits."""
    cands, t = open_grid()
    drop(cands, t, range(2, 9), 0b11)
    assert singles(cands, ROOT, 0, t)
    assert t.full == cands[0] & t.full


def test_naked_pairs_clear_the_pair_from_row_and_box() -> None:
    """r1c1 and r1c2 hold {1, 2}: row 1 and box 1 lose 1 and 2 elsewhere."""
    cands, t = open_grid()
    drop(cands, t, (0, 1), t.full & ~0b11)
    assert with_pairs(NAKED_PAIRS)(cands, ROOT, 0, t)
    others = [c for c in set(t.units[0]) | set(t.units[18]) if c > 1]
    assert ([0] * len(others), None) == (
        [cands[c] & 0b11 for c in others],
        check_state(cands, t),
    )


def test_three_digits_confined_to_two_cells_is_a_contradiction() -> None:
    """Digits 1, 2 and 3 fit only r1c1 and r1c2: hidden pairs refute the state."""
    cands, t = open_grid()
    drop(cands, t, range(2, 9), 0b111)
    assert with_pairs(HIDDEN_PAIRS)(cands, ROOT, 0, t) is False


def test_pairs_table_names_each_rule() -> None:
    """Each choice of PAIRS gives the inference named after its rules."""
    expected = ["singles", "singles_hidden", "singles_naked", "singles_hidden_naked"]
    assert expected == [with_pairs(flags).__name__ for flags in PAIRS.values()]


def test_no_pairs_is_singles() -> None:
    """The choice none is Norvig's singles, the very function."""
    assert singles is with_pairs(PAIRS["none"])


def test_locked_candidates_point_along_a_row() -> None:
    """Digit 1 fits box 1 only in row 1: the rest of row 1 loses it."""
    cands, t = open_grid()
    drop(cands, t, (9, 10, 11, 18, 19, 20), 1)
    queue: list[tuple[int, int]] = []
    dirty = locked_candidates(cands, t, queue)
    assert [0] * 6 == [cands[c] & 1 for c in range(3, 9)]
    assert [1] * 3 == [cands[c] & 1 for c in range(3)]
    assert dirty > 0
    assert [] == queue


def test_locked_candidates_claim_within_a_box() -> None:
    """Digit 1 fits row 1 only in box 1: the rest of box 1 loses it."""
    cands, t = open_grid()
    drop(cands, t, range(3, 9), 1)
    locked_candidates(cands, t, [])
    assert [0] * 6 == [cands[c] & 1 for c in (9, 10, 11, 18, 19, 20)]


def test_with_locked_reaches_a_well_formed_fixpoint() -> None:
    """At the root of top95's first puzzle: consistent, and no more locked candidates."""
    cands, start = state_of(TOP95_FIRST)
    inference = with_locked(HIDDEN_PAIRS)
    assert inference(cands, ROOT, 0, start.tables)
    assert check_state(cands, start.tables) is None
    assert 0 == locked_candidates(cands, start.tables, [])
    assert "singles_hidden_locked" == inference.__name__


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_pair_inferences_keep_the_state_well_formed(name: str) -> None:
    """After an assignment below the root the state passes check_state."""
    cands, start = state_of(TOP95_FIRST)
    t = start.tables
    inference = with_pairs(PAIRS[name])
    assert inference(cands, ROOT, 0, t)
    cell = mrv(cands, t)
    bit = ascending(cands, cell, t)[0]
    cands[cell] = t.assigned | bit
    inference(cands, cell, bit, t)
    assert check_state(cands, t) is None


def test_initial_state_matches_peers_given_by_given() -> None:
    """Each empty cell's candidates are the digits no peer gives (checked the slow way)."""
    puzzle = Puzzle.parse(TOP95_FIRST)
    start = initial_state(puzzle)
    t = start.tables
    expected = [
        t.full & ~sum({1 << (puzzle.cells[p] - 1) for p in t.peers[c] if puzzle.cells[p]})
        for c in range(81)
        if not puzzle.cells[c]
    ]
    assert expected == [m & t.full for m in start.cands if m < t.assigned]
