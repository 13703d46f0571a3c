"""What a cell, a row, a token or a field may be: symbol tables and the tests the layouts share."""

from __future__ import annotations

import csv
import re
from functools import cache

from backends.puzzle import CELL_COUNTS, EMPTY_MARKS, SIZES, alphabets

ROW_WIDTHS: tuple[int, ...] = tuple(sorted(SIZES))  # 4, 9, 16, 25
BIG_CELL_COUNTS = frozenset(count for count in CELL_COUNTS if count > 16)
EMPTY_TEXT = "".join(sorted(EMPTY_MARKS))
RULE_START = frozenset("-=+|~")
META_START = frozenset(":;,#|")
FOUR_BY_FOUR = frozenset("1234") | EMPTY_MARKS
_RULE_CHARS = frozenset("-=+|~ \t\f\v")
_NOT_A_ROW = frozenset("+=~")  # a line holding one of these is a separator, never a row
_QUOTES = frozenset("\"'")
INVALID = "\x7f"  # what a digit table maps a foreign character to (above every n)

# A one-line puzzle's token: everything up to whitespace or a metadata delimiter.
TOKEN = re.compile(r"[^\s:;,#|]*")
# A header: a capitalised word ('Grid 01', 'Puzzle 3:', 'SUDOKU') or a word and a number,
# at most 12 letters, then a space, ':', '#' or the end.
HEADER = re.compile(r"(?:[A-Z][A-Za-z]{1,11}|[A-Za-z]{2,12}(?=\s*#?\s*\d))(?:[\s:#]|$)")
ROW_TOKEN = re.compile(r"[^\s|]+")


def token_of(line: str) -> str:
    """The line's first token: up to whitespace or a metadata delimiter (maybe empty)."""
    return TOKEN.match(line).group()  # type: ignore[union-attr]  # always matches


def is_token(line: str) -> bool:
    """Whether the whole of ``line`` is one token: ``token_of(line) == line``, in a third of
    the time (``str.split`` sees the whitespace ``\\s`` does)."""
    if ":" in line or ";" in line or "," in line or "#" in line or "|" in line:
        return False
    return not line or line.split(None, 1) == [line]


@cache
def symbols(n: int) -> frozenset[str]:
    """Every character that is a symbol of some alphabet for side ``n``, or an empty mark."""
    chars = {ch for alphabet in alphabets(n).values() for ch in alphabet}
    return frozenset(chars | {ch.lower() for ch in chars} | EMPTY_MARKS)


@cache
def non_symbols(n: int) -> dict[int, None]:
    """A ``str.translate`` table deleting every symbol and empty mark of side ``n``."""
    return dict.fromkeys(map(ord, symbols(n)))


@cache
def digit_table(n: int, alphabet: str) -> dict[int, str]:
    """A ``str.translate`` table: symbol -> chr(digit), empty -> chr(0), chr(0..n) -> 0x7f.

    Every other character is left as it is, which is above ``n`` too, so a translated
    character is a digit exactly when its code is at most ``n``.
    """
    table = {code: INVALID for code in range(n + 1)}
    table.update({ord(ch): "\x00" for ch in EMPTY_MARKS})
    for digit, ch in enumerate(alphabet, start=1):
        table[ord(ch.upper())] = chr(digit)
        table[ord(ch.lower())] = chr(digit)
    return table


def first_bad(text: str, n: int, alphabet: str) -> int | None:
    """Index of the first character of ``text`` that is not a symbol of ``alphabet``."""
    digits = text.translate(digit_table(n, alphabet))
    return next((i for i, ch in enumerate(digits) if ord(ch) > n), None)


def is_rule(line: str) -> bool:
    """A line made only of separator characters (``- = + | ~`` and spaces)."""
    return set(line) <= _RULE_CHARS


def may_be_row(line: str) -> bool:
    """Whether a separator-character line may be a row of '-' cells: spaced, no ``+ = ~``."""
    return (" " in line or "\t" in line) and not (set(line) & _NOT_A_ROW)


def split_row(line: str, n: int | None = None) -> list[str]:
    """A grid row's cells: for 16x16/25x25, ``n`` whitespace-separated tokens if the line has
    exactly that many and one is longer than a character (numbers); else one per character."""
    parts = line.replace("|", " ").split()
    expected = (16, 25) if n is None else (n,) if n > 9 else ()
    if len(parts) in expected and any(len(part) > 1 for part in parts):
        return parts
    return list("".join(parts))


def plausible(cells: list[str], n: int) -> bool:
    """Whether every cell could be a symbol (or, for n > 9, a number) of an n x n grid."""
    allowed = FOUR_BY_FOUR if n == 4 else symbols(n)
    for cell in cells:
        if len(cell) == 1:
            if cell not in allowed:
                return False
        elif not (n > 9 and is_number(cell, n)):
            return False
    return True


def mostly_plausible(cells: list[str], n: int) -> bool:
    """Whether at least half the cells could be symbols: a row with a typo, not junk."""
    return 2 * sum(plausible([cell], n) for cell in cells) >= len(cells)


def is_number(cell: str, n: int) -> bool:
    """Whether ``cell`` is a decimal number from 0 to ``n`` (ASCII digits only)."""
    return cell.isascii() and cell.isdigit() and len(cell) <= 3 and int(cell) <= n


def is_count(text: str) -> bool:
    """Whether ``text`` is a solution count: 1 to 18 ASCII digits."""
    return 0 < len(text) <= 18 and text.isascii() and text.isdigit()


def foreign_chars(field: str, n: int) -> int:
    """How many of a field's characters are neither symbols of side ``n`` nor empty marks."""
    return len(field.translate(non_symbols(n)))


def unquote(value: str) -> str:
    """A CSV field without surrounding spaces and quotes."""
    value = value.strip()
    if value[:1] in _QUOTES or value[-1:] in _QUOTES:
        value = value.strip("\"'").strip()
    return value


def csv_split(line: str, delimiter: str) -> list[str]:
    """Split one CSV line; the csv module only when quotes are present."""
    if '"' not in line:
        return line.split(delimiter)
    try:
        return next(csv.reader([line], delimiter=delimiter))
    except (csv.Error, StopIteration):
        return line.split(delimiter)
