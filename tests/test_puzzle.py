"""The Puzzle model and its geometry."""

from __future__ import annotations

import pytest

from backends.errors import PuzzleError
from backends.puzzle import Puzzle, geometry

TOP1 = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


@pytest.mark.parametrize("box", [2, 3, 4, 5])
def test_geometry_counts(box: int) -> None:
    """Each size has 3n units of n cells and 3n-2b-1 peers per cell."""
    geo = geometry(box)
    n = box * box
    assert (3 * n, {n}) == (len(geo.units), {len(u) for u in geo.units})
    assert {3 * n - 2 * box - 1} == {len(p) for p in geo.peers}


def test_geometry_is_cached() -> None:
    """One Geometry object per size."""
    assert geometry(3) is geometry(3)


def test_unsupported_box() -> None:
    """A box side outside 2..5 is refused, naming the value."""
    with pytest.raises(PuzzleError, match="6"):
        geometry(6)


def test_roundtrip_canonical() -> None:
    """Parsing and printing the canonical text gives it back."""
    assert TOP1 == Puzzle.parse(TOP1).to_string()


def test_zero_and_dot_are_empty() -> None:
    """'0' and '.' both mean an empty cell in 9x9."""
    assert Puzzle.parse(TOP1) == Puzzle.parse(TOP1.replace(".", "0"))


def test_givens() -> None:
    """givens counts filled cells."""
    assert 17 == Puzzle.parse(TOP1).givens


def test_hex_alphabet_16() -> None:
    """A 16x16 in 0-F with '.' blanks maps 0 to the first digit."""
    text = "0123456789ABCDEF" + "." * 240
    assert tuple(range(1, 17)) == Puzzle.parse(text).cells[:16]


def test_canonical_16() -> None:
    """The canonical 16x16 alphabet is 1-9 then A-G."""
    text = "123456789ABCDEFG" + "." * 240
    assert "123456789ABCDEFG" == Puzzle.parse(text).to_string()[:16]


def test_letters_25() -> None:
    """A 25x25 in letters A-Y is read as digits 1..25."""
    text = "ABCDEFGHIJKLMNOPQRSTUVWXY" + "." * 600
    assert tuple(range(1, 26)) == Puzzle.parse(text).cells[:25]


def test_bad_character_named() -> None:
    """A character outside every alphabet is named in the error."""
    with pytest.raises(PuzzleError, match="'x'"):
        Puzzle.parse("x" + TOP1[1:])


def test_wrong_length() -> None:
    """A text that is not 16/81/256/625 long is refused with its length."""
    with pytest.raises(PuzzleError, match="80 cells"):
        Puzzle.parse(TOP1[:80])


def test_conflicts_name_unit_and_digit() -> None:
    """Two equal givens in row 1 are found as (unit 0, digit 4)."""
    puzzle = Puzzle.parse("4" + TOP1[1:5] + "4" + TOP1[6:])
    assert [(0, 4)] == puzzle.conflicts()


def test_unit_names() -> None:
    """Unit indices read as row, column and box, 1-based."""
    geo = geometry(3)
    assert ["row 1", "column 2", "box 9"] == [geo.unit_name(u) for u in (0, 10, 26)]


def test_pretty_has_box_rules() -> None:
    """The pretty grid has n rows plus box-1 rules."""
    assert 11 == len(Puzzle.parse(TOP1).pretty().splitlines())


def test_digits_are_the_cells_as_bytes_and_leave_equality_alone() -> None:
    """``digits`` holds the cells a byte each; a puzzle that has made it equals one that has not."""
    puzzle = Puzzle.parse("1.3.....4....2.1")
    other = Puzzle.parse("1.3.....4....2.1")
    assert (bytes([1, 0, 3, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 2, 0, 1]), other) == (
        puzzle.digits,
        puzzle,
    )
