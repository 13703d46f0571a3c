"""Tests of the logic backend and its ladder of human strategies."""

from __future__ import annotations

import pytest

from backends import backend_class, make_backend
from backends.base import Status
from backends.engines.strategies.board import Board, Step, layout
from backends.engines.strategies.ladder import LADDER, next_step
from backends.errors import BackendOptionError, UnknownStatusError
from backends.logic import LogicBackend, first_open, most, solve_puzzle, translate_status
from backends.puzzle import Puzzle
from harness.check.checker import check_solution
from tests.puzzles import effort

#: For each strategy, a puzzle on which (before any guess) it is the rung that makes
#: progress. Found by solving the generator's puzzles (`harness generate --size 9 --count
#: 1000 --seed 2024`) and Norvig's top95 with logging on; the quickest such puzzle is pinned
#: (hidden triple and forcing chain: top95 lines 78 and 19; the rest generated). Hidden quad
#: never fired there: its test is the crafted board below.
STRATEGY_PUZZLES: dict[str, str] = {
    "hidden single": (
        ".3....5..651.3..9...9..8.649.5.............233..4...8.........787.591.....48....."
    ),
    "naked single": (
        ".3....5..651.3..9...9..8.649.5.............233..4...8.........787.591.....48....."
    ),
    "pointing": (
        "..25.........29.....7.8.5.19..7.....4....1.9...59...6.......4...8....21..21..8.35"
    ),
    "claiming": (
        "9...1.5......58..326......9....7.9..4.........7.2....16....3..4....6..2..2.8.41.."
    ),
    "naked pair": (
        "..879......1...8.9...1.......4..9.2.3...5......9...3.72....4.8..1.9....3....836.."
    ),
    "hidden pair": (
        "..23....7....4........65.9.1.....2.....9.6..33......487...2..3..4.18.9...15....8."
    ),
    "naked triple": (
        "...52.64.56...1.......8...1.....3..9.9........1.2..8....98............74.2..5.16."
    ),
    "x-wing": ("1..3....6...925.....4.....7.......75.8.......6....89.4....3..5..9.14....82....1.."),
    "hidden triple": (
        "4...7.1....19.46.5.....1......7....2..2.3....847..6....14...8.6.2....3..6...9...."
    ),
    "xy-wing": (
        ".2.3....5....8..3.51.........4....5.18.53...2.3.......6..9...4..4......8...82...7"
    ),
    "xyz-wing": (
        "7.6.....8..8.4....5...9...4..32..1.5....7.46.....1....6....29...2...8.....9...6.1"
    ),
    "naked quad": (
        "....7.......4..58........23...6...3546.52....7...1.......2.....84.....912.9..84.."
    ),
    "skyscraper": (
        "1.3........42...7....1....89....1.63.28...1...6..3....5..6.....4.6.5..9......98.."
    ),
    "2-string kite": (
        ".27.........4....88..6.1..97..8......927..5..5....6.4..8...5.3........9.1..3..2.."
    ),
    "turbot fish": (
        "6..2.7.....4......5....8....7.....4....72...5.5..3.29.71...64..26.4...1....8...3."
    ),
    "swordfish": (
        "...4..3..91..58.2......1..8........6.3..1..7...6.7945..8.......79..2...3.......4."
    ),
    "w-wing": ("8..64..7......39.........846.392.......4...9..2..8.....37....5.26..9...8..43.72.1"),
    "jellyfish": (
        "....2.....7.915.3..154..........9.....4....593.....2415.91...28..8....9......83.."
    ),
    "xy-chain": (
        ".39..8..28......94...4..1.....2.....6...8.2...9....76.5..6.9.7..8.......1.4......"
    ),
    "x-chain": (
        "..8..1.5........8996.54..3....9..17...6.......2..1..4..1.8......8.23.5..6.3......"
    ),
    "aic": ("..8.....4..2.1.59.5..3.9.8..4.9....12............2.4..9....1.....5....728.7.5.6.."),
    "forcing chain": (
        ".237....68...6.59.9.....7......4.97.3.7.96..2.........5..47.........2....8......."
    ),
}
#: A 16x16 generated puzzle (carved to 110 givens) that needs subsets, fish, chains and one
#: guess: the ladder generalises with the box side.
SIXTEEN = (
    ".62.CB....9G15..AB.74.....1.3...FC...51G67....4BG.......D..8.2AC2...8..9.6.D.3......1..."
    ".4F.E..D.......D.C.2A1.9D8G..3E.1.....2.9E..2.5CB.3.G...85A.3..649..7F...7C..1G..8..4.D."
    "6G.....451.EB..2.9B..E..3GD.8....2.G.AC....BD49...4....39...CE....7......AC4..1."
)
EASY = STRATEGY_PUZZLES["hidden single"]
# Two solutions (the first puzzle of datasets/multi.txt).
MULTI = "15..2......83....46..........9.8..5..3..49.....6..5.2.......31............4...679"


def known_solution(puzzle: Puzzle) -> tuple[int, ...]:
    """The unique solution by another backend (mrv with singles), checked by the checker."""
    backend = make_backend("mrv:inference=singles")
    result = backend.solve(backend.encode(puzzle), limit=2)
    assert (Status.SOLVED, 1) == (result.status, result.solutions_found)
    assert check_solution(puzzle.cells, result.solution) is None
    return tuple(result.solution)


def wrong_moves(step: Step, solution: tuple[int, ...]) -> list[str]:
    """Each placement of a wrong digit and each elimination of the true digit of a step."""
    bad = [f"places {d} at {c}" for c, d in step.placements if solution[c] != d]
    return bad + [f"removes true {d} at {c}" for c, d in step.eliminations if solution[c] == d]


def board_before(puzzle: Puzzle, name: str) -> Board:
    """Replay the ladder on ``puzzle`` up to the first step of strategy ``name``."""
    board, reason = Board.from_puzzle(puzzle)
    assert reason is None
    while True:
        step = next_step(board)
        assert step is not None, f"the ladder got stuck before any {name}"
        if step.strategy == name:
            return board
        assert board.apply(step) is None


@pytest.mark.parametrize("name", sorted(STRATEGY_PUZZLES))
def test_strategy_makes_progress(name: str) -> None:
    """On its pinned puzzle, every cheaper rung finds nothing, and this one finds a true step."""
    puzzle = Puzzle.parse(STRATEGY_PUZZLES[name])
    solution = known_solution(puzzle)
    board = board_before(puzzle, name)
    rungs = [rule.name for rule in LADDER]
    cheaper = [rule for rule in LADDER[: rungs.index(name)]]
    assert [] == [rule.name for rule in cheaper if rule.apply(board) is not None]
    step = LADDER[rungs.index(name)].apply(board)
    assert step is not None
    before = (board.values.copy(), board.cands.copy())
    assert (name, [], None) == (step.strategy, wrong_moves(step, solution), board.apply(step))
    assert before != (board.values, board.cands)


def crafted_hidden_quad() -> Board:
    """Every cell open with every digit, except that r1c5..r1c9 lack 1-4."""
    lay = layout(3)
    cands = [lay.full] * lay.ncells
    for c in range(4, 9):
        cands[c] = lay.full & ~0b1111
    return Board(lay, cands, [0] * lay.ncells)


def test_hidden_quad_crafted() -> None:
    """1-4 confined to r1c1..r1c4: the hidden quad is the first rung that makes progress."""
    step = next_step(crafted_hidden_quad())
    assert step is not None
    expected = tuple((c, d) for c in range(4) for d in range(5, 10))
    assert ("hidden quad", expected) == (step.strategy, step.eliminations)
    assert step.text.endswith("(hidden quad 1/2/3/4 in r1c1, r1c2, r1c3, r1c4 of row 1)")


def test_every_rung_has_a_test() -> None:
    """Each strategy of the ladder has a pinned puzzle or the crafted board."""
    assert {rule.name for rule in LADDER} == {*STRATEGY_PUZZLES, "hidden quad"}


def test_hidden_single_text() -> None:
    """A hidden single reads 'rXcY = D (hidden single in box B)'."""
    step = next_step(Board.from_puzzle(Puzzle.parse(EASY))[0])
    assert step is not None
    assert "r1c1 = 4 (hidden single in box 1)" == step.text


def test_pointing_text() -> None:
    """A pointing step names the digit, the cells, the box and the line."""
    board = board_before(Puzzle.parse(STRATEGY_PUZZLES["pointing"]), "pointing")
    step = next_step(board)
    assert step is not None
    assert step.text.startswith("remove ")
    assert "(pointing: in box " in step.text


def test_sixteen_every_step_true() -> None:
    """On a 16x16 puzzle, every step made while every guess was right is true."""
    puzzle = Puzzle.parse(SIXTEEN)
    solution = known_solution(puzzle)
    outcome = solve_puzzle(puzzle, explain=True)
    assert outcome.log is not None
    right: list[bool] = []
    checked = 0
    for step in outcome.log:
        right = right[: step.depth]
        if step.strategy == "guess":
            right.append(not wrong_moves(step, solution))
        elif step.strategy not in ("backtrack", "solution") and all(right):
            assert [] == wrong_moves(step, solution)
            checked += 1
    assert Status.SOLVED == outcome.status
    assert solution == outcome.solutions[0]
    assert checked > 100
    assert {"naked pair", "hidden pair", "aic"} <= set(outcome.counts)


def test_registered() -> None:
    """The registry maps 'logic' to LogicBackend."""
    assert LogicBackend is backend_class("logic")


def test_easy_counters() -> None:
    """A puzzle the ladder solves alone: 1 node, no guess, no backtrack, level 0."""
    backend = LogicBackend()
    result = backend.solve(backend.encode(Puzzle.parse(EASY)))
    assert (Status.SOLVED, 1, 0, 0) == (
        result.status,
        result.nodes,
        result.guesses,
        result.backtracks,
    )
    assert (0, 0, None) == (
        result.native["level"],
        result.native["max_depth"],
        check_solution(Puzzle.parse(EASY).cells, result.solution),
    )


def test_native_counters_declared() -> None:
    """Native statistics are exactly the declared ones, as numbers."""
    backend = LogicBackend()
    result = backend.solve(backend.encode(Puzzle.parse(MULTI)), limit=2)
    assert set(LogicBackend.native_counters) == set(result.native)
    assert all(isinstance(v, int | float) for v in result.native.values())


def test_counters_match_the_log() -> None:
    """nodes = 1 + guessed values, backtracks = undone values, guesses = branch points."""
    outcome = solve_puzzle(Puzzle.parse(MULTI), limit=2, explain=True)
    log = outcome.log
    assert log is not None
    tried = [i for i, s in enumerate(log) if s.strategy == "guess"]
    undone = [s for s in log if s.strategy == "backtrack"]
    # A branch point's first guess is the one not right after a sibling's backtrack.
    opened = [
        i
        for i in tried
        if not (i and log[i - 1].strategy == "backtrack" and log[i - 1].depth == log[i].depth)
    ]
    assert (1 + len(tried), len(undone), len(opened)) == (
        outcome.nodes,
        outcome.backtracks,
        outcome.guesses,
    )
    assert (2, 4, 10.0) == (len(outcome.solutions), outcome.level, outcome.score)


def test_limit_one_on_multi() -> None:
    """Under limit 1 a two-solution puzzle gives one checked solution, after a guess."""
    backend = LogicBackend()
    puzzle = Puzzle.parse(MULTI)
    result = backend.solve(backend.encode(puzzle), limit=1)
    assert Status.SOLVED == result.status
    assert 1 == result.solutions_found
    assert check_solution(puzzle.cells, result.solution) is None
    assert result.guesses > 0


def test_limit_two_finds_two() -> None:
    """Under limit 2 the two-solution puzzle gives 2, with at least one backtrack."""
    backend = LogicBackend()
    result = backend.solve(backend.encode(Puzzle.parse(MULTI)), limit=2)
    assert Status.SOLVED == result.status
    assert 2 == result.solutions_found
    assert result.backtracks >= 1


def test_unique_under_limit_two() -> None:
    """Under limit 2 a unique puzzle gives exactly 1 solution."""
    backend = LogicBackend()
    puzzle = Puzzle.parse(STRATEGY_PUZZLES["aic"])
    result = backend.solve(backend.encode(puzzle), limit=2)
    assert (Status.SOLVED, 1) == (result.status, result.solutions_found)


def test_clashing_givens_unsat() -> None:
    """Two equal givens in a row: UNSAT at the root, 1 node."""
    backend = LogicBackend()
    result = backend.solve(backend.encode(Puzzle.parse("11" + "." * 79)))
    assert (Status.UNSAT, 1, 0, 0) == effort(result)
    assert result.solution is None


def test_unsat_reason() -> None:
    """An unsolvable puzzle's outcome says what contradiction closed it."""
    # Row 1 holds 1-7; 8 sits in the columns of both its empty cells.
    text = "1234567.." + "." * 18 + ".......8." + "." * 18 + "........8" + "." * 18
    outcome = solve_puzzle(Puzzle.parse(text))
    assert (Status.UNSAT, "no place for 8 in row 1") == (outcome.status, outcome.reason)


def test_time_limit_zero_times_out() -> None:
    """A zero time limit gives TIMEOUT with a message and its counters."""
    backend = LogicBackend()
    result = backend.solve(backend.encode(Puzzle.parse(MULTI)), time_limit=0.0)
    assert Status.TIMEOUT == result.status
    assert 1 == result.nodes
    assert "time limit" in result.message


def test_max_level_zero_guesses_more() -> None:
    """With singles only, the x-wing puzzle needs guesses that the full ladder avoids."""
    puzzle = Puzzle.parse(STRATEGY_PUZZLES["x-wing"])
    singles = make_backend("logic:max_level=0")
    full = LogicBackend()
    low = singles.solve(singles.encode(puzzle))
    high = full.solve(full.encode(puzzle))
    assert low.guesses > 0
    assert 0 == high.guesses
    assert Status.SOLVED == low.status


def test_bad_option_refused() -> None:
    """An unknown max_level is refused with the bad value named."""
    with pytest.raises(BackendOptionError, match="'7'"):
        make_backend("logic:max_level=7")


def test_spec_shows_options() -> None:
    """Non-default options appear in the spec."""
    assert "logic:select=max,max_level=1" == make_backend("logic:select=max,max_level=1").spec


def test_unknown_status_refused() -> None:
    """An outcome the translation does not know raises UnknownStatusError naming it."""
    with pytest.raises(UnknownStatusError, match="'gave up'"):
        translate_status("gave up")


def test_select_heuristics() -> None:
    """first picks the first open cell, max the open cell with the most candidates."""
    board = Board.from_puzzle(Puzzle.parse(EASY))[0]
    counts = [m.bit_count() if not v else 0 for m, v in zip(board.cands, board.values, strict=True)]
    assert (board.values.index(0), counts.index(max(counts))) == (first_open(board), most(board))


@pytest.mark.parametrize("select", ["mrv", "first", "max"])
def test_every_select_solves(select: str) -> None:
    """Each guess heuristic solves the two-solution puzzle under limit 2."""
    backend = make_backend(f"logic:select={select}")
    result = backend.solve(backend.encode(Puzzle.parse(MULTI)), limit=2)
    assert (Status.SOLVED, 2) == (result.status, result.solutions_found)


def test_four_by_four() -> None:
    """A 4x4 puzzle is solved and checked."""
    puzzle = Puzzle.parse("..1.2......4.2..")
    result = LogicBackend().solve(LogicBackend().encode(puzzle))
    assert (Status.SOLVED, None) == (result.status, check_solution(puzzle.cells, result.solution))


def test_encode_leaves_board_unchanged() -> None:
    """Solving twice from one encoding gives the same counters (solve works on a copy)."""
    backend = LogicBackend()
    encoded = backend.encode(Puzzle.parse(MULTI))
    first = backend.solve(encoded, limit=2)
    second = backend.solve(encoded, limit=2)
    assert (first.nodes, first.solution) == (second.nodes, second.solution)
