"""The reasons a bad line is given: what is wrong, where, and what was expected."""

from __future__ import annotations

from collections.abc import Callable

from backends.puzzle import Puzzle, alphabets, canonical_alphabet
from harness.puzzles.readers.source import MAX_LINE
from harness.puzzles.readers.symbols import EMPTY_TEXT, ROW_TOKEN, first_bad, plausible, symbols

LENGTHS_TEXT = "16, 81, 256 or 625"
WIDTHS_TEXT = "4, 9, 16 or 25"
LINE_TOO_LONG = f"line too long: more than {MAX_LINE:,} characters"


def _alphabet_words(n: int, alphabet: str) -> str:
    """An alphabet in people's words: '1-9', '1-9, A-G', '0-9, A-F', 'A-P'."""
    if n > 9 and alphabet.startswith("123456789"):
        return f"1-9, A-{alphabet[-1]}"
    if n > 9 and alphabet.startswith("0123456789"):
        return f"0-9, A-{alphabet[-1]}"
    return f"{alphabet[0]}-{alphabet[-1]}"


def describe_alphabet(n: int, alphabet: str | None = None) -> str:
    """What a cell may hold: '1-9, or an empty mark (one of *-.0_)'."""
    if alphabet is None:
        shown = " or ".join(_alphabet_words(n, a) for a in alphabets(n).values())
    else:
        shown = _alphabet_words(n, alphabet)
    return f"{shown}, or an empty mark (one of {EMPTY_TEXT})"


def bad_char_reason(text: str, n: int, alphabet: str | None, where: Callable[[int], str]) -> str:
    """Why ``text`` has a bad character: which one, where, and what was expected.

    With ``alphabet`` None, the text fitted no alphabet: name the first character that no
    alphabet has, or else the first that mixes alphabets.
    """
    if alphabet is not None:
        index = first_bad(text, n, alphabet)
        if index is not None:
            return (
                f"bad character {text[index]!r} at {where(index)}; "
                f"expected {describe_alphabet(n, alphabet)}"
            )
        return "bad character"  # not reached: callers have seen one
    allowed = symbols(n)
    for index, ch in enumerate(text):
        if ch not in allowed:
            return f"bad character {ch!r} at {where(index)}; expected {describe_alphabet(n)}"
    index = first_bad(text, n, canonical_alphabet(n)) or 0
    return (
        f"character {text[index]!r} at {where(index)} mixes alphabets: no single {n}x{n} "
        f"alphabet ({describe_alphabet(n)}) has every symbol used"
    )


def conflict_reason(puzzle: Puzzle, alphabet: str | None) -> str:
    """'digit 7 appears twice in row 3', for the first repeated digit of ``puzzle``.

    The digit is shown in the file's own ``alphabet``, or as a number when None.
    """
    found = puzzle.conflicts()
    unit, digit = found[0]
    geo = puzzle.geometry
    times = sum(1 for cell in geo.units[unit] if puzzle.cells[cell] == digit)
    count = "twice" if times == 2 else f"{times} times"
    more = ""
    if len(found) > 1:
        more = f" (and {len(found) - 1} more conflict{'' if len(found) == 2 else 's'})"
    symbol = str(digit) if alphabet is None else alphabet[digit - 1]
    return f"digit {symbol} appears {count} in {geo.unit_name(unit)}{more}"


def wrong_length(size: int) -> str:
    """The reason for a line that is neither a one-line puzzle nor the start of a grid."""
    if size == 0:
        return "no puzzle: the line starts with a metadata delimiter (one of : ; , |)"
    return (
        f"wrong length: {size} cells; expected {LENGTHS_TEXT} for a one-line puzzle, "
        f"or {WIDTHS_TEXT} for a grid row followed by the grid's other rows"
    )


def solution_length(size: int, ncells: int) -> str:
    """The reason for a field after the grid that is a solution of the wrong length."""
    return f"expected solution has {size} cells, the puzzle {ncells}"


def cell_starts(raw: str, numeric: bool) -> list[int]:
    """The 0-based column where each cell of a grid row starts."""
    if numeric:
        return [match.start() for match in ROW_TOKEN.finditer(raw)]
    return [i for i, ch in enumerate(raw) if not ch.isspace() and ch != "|"]


def bad_cell_reason(raw: str, cells: list[str], n: int) -> str:
    """Why a line with a row's number of cells is not a row: its first impossible cell."""
    index = next(i for i, cell in enumerate(cells) if not plausible([cell], n))
    numeric = any(len(cell) > 1 for cell in cells)
    starts = cell_starts(raw, numeric)
    column = starts[index] + 1 if index < len(starts) else 0
    return bad_cell_text(cells[index], f"column {column}", n, numeric)


def bad_cell_text(cell: str, where: str, n: int, numeric: bool) -> str:
    """'bad character 'x' at column 3; expected ...' or the same for a number."""
    if numeric:
        return (
            f"bad number {cell!r} at {where}; expected 1-{n}, "
            f"or 0 or one of {EMPTY_TEXT} for an empty cell"
        )
    return f"bad character {cell!r} at {where}; expected {describe_alphabet(n)}"
