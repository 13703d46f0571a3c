"""Tests of the norvig backend: seed 001's propagation and search, Vermeer's pairs."""

from __future__ import annotations

from pathlib import Path

import pytest

from backends import backend_class, make_backend, parse_spec
from backends.base import SolveResult, Status
from backends.errors import BackendOptionError
from backends.norvig import NorvigBackend, parse_pairs
from backends.puzzle import Puzzle
from harness.check.checker import check_solution
from tests.puzzles import EASY_FIRST, TOP95_FIRST, effort, public_set, shipped

PROJECT = Path(__file__).resolve().parents[1]


def solve(puzzle: Puzzle, spec: str = "norvig", limit: int = 1) -> SolveResult:
    """Encode and solve one puzzle with the options of ``spec``."""
    backend = NorvigBackend(**parse_spec(spec)[1])
    return backend.solve(backend.encode(puzzle), limit=limit, time_limit=60)


def totals(puzzles: list[Puzzle], spec: str) -> tuple[int, int, int]:
    """Summed (nodes, guesses, backtracks) with limit 1; every answer checked."""
    results = [solve(p, spec) for p in puzzles]
    wrong = [
        p for p, r in zip(puzzles, results, strict=True) if check_solution(p.cells, r.solution)
    ]
    assert [] == wrong
    return (
        sum(r.nodes or 0 for r in results),
        sum(r.guesses or 0 for r in results),
        sum(r.backtracks or 0 for r in results),
    )


def test_norvig_is_registered() -> None:
    """The registry maps 'norvig' to NorvigBackend."""
    assert NorvigBackend is backend_class("norvig")


@pytest.mark.parametrize(
    ("text", "expected"),
    [("true", "hidden"), ("No", "none"), ("naked", "naked"), ("BOTH", "both")],
)
def test_pairs_accepts_booleans_and_rule_names(text: str, expected: str) -> None:
    """pairs=true means Vermeer's hidden pairs; false means none."""
    assert expected == parse_pairs(text)


def test_options_from_a_spec() -> None:
    """A spec sets every option; the canonical spec names the rule that pairs=true chose."""
    backend = make_backend("norvig:pairs=true,locked=root,select=first")
    expected = {"pairs": "hidden", "locked": "root", "select": "first"}
    assert (expected, "norvig:pairs=hidden,locked=root,select=first") == (
        backend.config,
        backend.spec,
    )


def test_a_bad_pairs_value_names_the_choices() -> None:
    """pairs=triples is refused with the accepted values in the message."""
    with pytest.raises(BackendOptionError, match=r"pairs='triples'.*hidden"):
        make_backend("norvig:pairs=triples")


def test_propagation_alone_solves_an_easy_puzzle() -> None:
    """Easy50's first puzzle: one node, no guess, no backtrack."""
    assert (Status.SOLVED, 1, 0, 0) == effort(solve(Puzzle.parse(EASY_FIRST)))


def test_pairs_shrink_the_tree_of_a_hard_puzzle() -> None:
    """On top95's first puzzle every added rule tries fewer values."""
    puzzle = Puzzle.parse(TOP95_FIRST)
    nodes = [
        solve(puzzle, spec).nodes or 0
        for spec in ("norvig", "norvig:pairs=true", "norvig:pairs=true,locked=root")
    ]
    assert sorted(nodes, reverse=True) == nodes and nodes[0] > nodes[-1]


def test_top95_nodes_without_pairs() -> None:
    """Norvig's count: 6,222 nodes on top95 (the issue's ceiling), 3,188 guesses."""
    assert (6222, 3188, 5566) == totals(public_set("norvig-top95.txt"), "norvig")


def test_top95_nodes_with_pairs() -> None:
    """Vermeer's rule: 2,263 nodes on top95 (the issue's ceiling), 1,187 guesses."""
    assert (2263, 1187, 1740) == totals(public_set("norvig-top95.txt"), "norvig:pairs=true")


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("norvig:locked=root", (2710, 1413, 2209)),
        ("norvig:pairs=true,locked=root", (1449, 747, 1068)),
        ("norvig:pairs=naked", (2982, 1547, 2422)),
        ("norvig:locked=all", (2060, 1073, 1609)),
        ("norvig:pairs=both,locked=all", (971, 501, 618)),
    ],
)
def test_top95_nodes_of_the_speed_options(spec: str, expected: tuple[int, int, int]) -> None:
    """Regression figures for the pair and locked-candidates options on top95."""
    assert expected == totals(public_set("norvig-top95.txt"), spec)


SPECS = [
    "norvig:pairs=true",
    "norvig:pairs=naked",
    "norvig:pairs=both,locked=all",
    "norvig:locked=root",
    "norvig:select=first",
    "norvig:select=max,pairs=true",
]


@pytest.mark.parametrize("spec", SPECS)
def test_variants_keep_the_contract_on_the_shipped_sets(spec: str) -> None:
    """Each variant: unique puzzles (every size) solved once, two solutions found, UNSAT."""
    results = [
        solve(p, spec, limit=2)
        for name in ("sizes.txt", "multi.txt", "unsolvable.txt")
        for p in shipped(name)
    ]
    expected = (
        [(Status.SOLVED, 1)] * len(shipped("sizes.txt"))
        + [(Status.SOLVED, 2)] * len(shipped("multi.txt"))
        + [(Status.UNSAT, 0)] * len(shipped("unsolvable.txt"))
    )
    assert expected == [(r.status, r.solutions_found) for r in results]


@pytest.mark.parametrize("spec", SPECS)
def test_variants_agree_with_plain_norvig_on_top95(spec: str) -> None:
    """Each variant finds the same (unique) answers as plain norvig, counting to two."""
    puzzles = public_set("norvig-top95.txt")[:30]
    plain = [solve(p, limit=2).solution for p in puzzles]
    assert plain == [solve(p, spec, limit=2).solution for p in puzzles]
