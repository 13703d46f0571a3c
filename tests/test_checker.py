"""The independent checker."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.check.checker import _reason, all_valid, check_solution

SOLVED = tuple(
    int(ch)
    for ch in "417369825632158947958724316825437169791586432346912758289643571573291684164875293"
)
PUZZLE = tuple(
    0 if ch == "." else int(ch)
    for ch in "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
)


def test_accepts_valid_completion() -> None:
    """A correct completion of top95 #1 is accepted."""
    assert check_solution(PUZZLE, SOLVED) is None


def test_rejects_changed_given() -> None:
    """A valid grid that changes a given is refused, naming the cell."""
    other = SOLVED[9:18] + SOLVED[:9] + SOLVED[18:]  # swap rows 1 and 2: still valid
    assert "r1c1 changes the given 4 to 6" == check_solution(PUZZLE, other)


def test_rejects_broken_unit() -> None:
    """A grid with a repeated digit in a column is refused."""
    broken = (SOLVED[1], SOLVED[0], *SOLVED[2:])
    assert check_solution((0,) * 81, broken) == "column 1 lacks digit 4"


def test_rejects_missing_answer() -> None:
    """No grid is never right."""
    assert "no grid returned" == check_solution(PUZZLE, None)


def test_rejects_wrong_length() -> None:
    """A grid of the wrong size is refused."""
    assert "answer has 80 cells, expected 81" == check_solution(PUZZLE, SOLVED[:80])


def test_rejects_out_of_range_digit() -> None:
    """A 0 left in the answer is an empty cell, and 10 is not a digit."""
    assert "r1c3 holds 10, not a digit 1..9" == check_solution(PUZZLE, (4, 3, 10, *SOLVED[3:]))
    assert "r1c2 is empty" == check_solution(PUZZLE, (4, 0, *SOLVED[2:]))


def test_accepts_4x4() -> None:
    """The checker knows 2x2 boxes."""
    grid = (1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1)
    assert check_solution((0,) * 16, grid) is None


def test_rejects_4x4_box_violation() -> None:
    """Rows and columns fine but a box repeats: refused."""
    grid = (1, 2, 3, 4, 2, 3, 4, 1, 3, 4, 1, 2, 4, 1, 2, 3)
    assert "box 1 lacks digit 4" == check_solution((0,) * 16, grid)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 80), st.sampled_from([0, 1, 5, 9, 10, -1, 1.0, True]))))
def test_quick_test_never_changes_the_verdict(edits: list[tuple[int, object]]) -> None:
    """The C-speed test gives the cell-by-cell loop's verdict on any edited grid."""
    grid = list(SOLVED)
    for cell, value in edits:
        grid[cell] = value
    answer = tuple(grid)
    assert _reason(PUZZLE, answer, 9) == check_solution(PUZZLE, answer)


def test_true_is_not_a_digit() -> None:
    """A bool in the grid is refused, though True == 1."""
    answer = (4, True, *SOLVED[2:])
    assert "r1c2 holds True, not a digit 1..9" == check_solution(PUZZLE, answer)


def test_swapped_cells_in_a_row_are_refused() -> None:
    """Two cells swapped within a row keep the row whole: their columns break."""
    swapped = (SOLVED[3], *SOLVED[1:3], SOLVED[0], *SOLVED[4:])
    assert "column 1 lacks digit 4" == check_solution((0,) * 81, swapped)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from([2, 4]),
    st.lists(st.tuples(st.integers(0, 255), st.integers(0, 255)), max_size=3),
    st.permutations(range(1, 17)),
)
def test_quick_test_agrees_on_other_sizes(
    box: int, swaps: list[tuple[int, int]], labels: list[int]
) -> None:
    """On 4x4 and 16x16 grids with cells swapped, the quick test gives the loop's verdict."""
    n = box * box
    grid = [((r % box) * box + r // box + c) % n + 1 for r in range(n) for c in range(n)]
    relabel = [v for v in labels if v <= n]  # a permutation of 1..n
    grid = [relabel[v - 1] for v in grid]
    for i, j in swaps:
        grid[i % (n * n)], grid[j % (n * n)] = grid[j % (n * n)], grid[i % (n * n)]
    answer = tuple(grid)
    assert _reason((0,) * (n * n), answer, n) == check_solution((0,) * (n * n), answer)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 80), st.integers(0, 12)), max_size=4))
def test_an_answer_as_bytes_gets_the_verdict_of_the_loop(edits: list[tuple[int, int]]) -> None:
    """A 9x9 answer as bytes (as a worker sends it), edited anyhow, gets the loop's verdict."""
    grid = list(SOLVED)
    for cell, value in edits:
        grid[cell] = value
    assert _reason(PUZZLE, tuple(grid), 9) == check_solution(PUZZLE, bytes(grid))


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from([2, 3, 4]),
    st.lists(st.tuples(st.integers(0, 255), st.integers(0, 255)), max_size=3),
    st.integers(0, 255),
)
def test_bytes_and_tuples_get_one_verdict_on_every_size(
    box: int, swaps: list[tuple[int, int]], given_at: int
) -> None:
    """On 4x4, 9x9 and 16x16 grids with cells swapped and one given kept, bytes and a tuple
    of the same answer get the same verdict."""
    n = box * box
    grid = [((r % box) * box + r // box + c) % n + 1 for r in range(n) for c in range(n)]
    givens = [0] * (n * n)
    givens[given_at % (n * n)] = grid[given_at % (n * n)]
    for i, j in swaps:
        grid[i % (n * n)], grid[j % (n * n)] = grid[j % (n * n)], grid[i % (n * n)]
    assert check_solution(givens, tuple(grid)) == check_solution(givens, bytes(grid))


def test_bytes_answer_that_changes_a_given_is_refused() -> None:
    """A valid grid as bytes that changes a given is refused, naming the cell."""
    other = bytes(SOLVED[9:18] + SOLVED[:9] + SOLVED[18:])  # rows 1 and 2 swapped: valid
    assert "r1c1 changes the given 4 to 6" == check_solution(PUZZLE, other)


def _pattern(box: int) -> list[int]:
    n = box * box
    return [((r % box) * box + r // box + c) % n + 1 for r in range(n) for c in range(n)]


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([2, 3, 4]),
    st.lists(
        st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255)),
        min_size=1,
        max_size=5,
    ),
    st.integers(0, 255),
)
def test_grids_checked_together_get_the_verdict_of_each_alone(
    box: int, grids: list[tuple[int, int, int]], given_at: int
) -> None:
    """Grids (each with two cells swapped or one cell rewritten) checked together are all
    valid exactly when each is valid alone."""
    n = box * box
    givens, answers = [], []
    for i, j, value in grids:
        grid = _pattern(box)
        kept = [0] * (n * n)
        kept[given_at % (n * n)] = grid[given_at % (n * n)]
        if value % 3 == 0:
            grid[i % (n * n)] = value % (n + 2)
        else:
            grid[i % (n * n)], grid[j % (n * n)] = grid[j % (n * n)], grid[i % (n * n)]
        givens.append(tuple(kept))
        answers.append(bytes(grid))
    alone = all(check_solution(g, a) is None for g, a in zip(givens, answers, strict=True))
    assert alone == all_valid(givens, answers, n)


def test_a_row_of_one_grid_and_the_next_grid_do_not_make_a_unit() -> None:
    """Two grids end to end, each with its last row's digits shifted by one cell, are
    refused together: the lanes of one grid are never filled by the other's."""
    first, second = list(SOLVED), list(SOLVED)
    for grid in (first, second):
        grid[72:81] = grid[73:81] + grid[72:73]  # columns broken, rows still full
    empty = (0,) * 81
    assert (False, "column 1 lacks digit 1") == (
        all_valid([empty] * 2, [bytes(first), bytes(second)], 9),
        check_solution(empty, bytes(first)),
    )


def test_answers_that_are_not_bytes_of_the_grid_size_are_left_to_the_check_alone() -> None:
    """A tuple answer, or bytes of the wrong length, makes the batch test say False."""
    assert (
        (True, False, False)
        == (
            all_valid([PUZZLE], [bytes(SOLVED)], 9),
            all_valid([PUZZLE], [SOLVED], 9),  # type: ignore[list-item]
            all_valid([PUZZLE, PUZZLE], [bytes(SOLVED), bytes(SOLVED)[:80]], 9),
        )
    )
