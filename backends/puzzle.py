"""The Sudoku domain, named once: geometry (cells, units, peers), symbols, and the Puzzle.

Legend (after Norvig's ``sudoku.py``):

* ``box``    -- the side of one box: 2, 3, 4 or 5.
* ``n``      -- the side of the grid, ``box * box``: 4, 9, 16 or 25. Also the number of digits.
* cell       -- an index ``0 .. n*n - 1``, row-major: cell ``r * n + c`` is row ``r``, column ``c``.
* digit      -- an int ``1 .. n``; ``0`` marks an empty cell. Digits are what every backend sees.
* symbol     -- the character that shows a digit in text (see *Symbols* below).
* unit       -- a row, a column or a box: a tuple of ``n`` cells that must hold every digit once.
* peers      -- the cells that share a unit with a cell, the cell itself excluded.

All of it is computed once per box size by :func:`geometry`, never typed out.

Symbols
-------
The canonical alphabet is the digits ``1-9`` followed by capital letters: ``1-4`` for 4x4,
``1-9`` for 9x9, ``1-9A-G`` for 16x16 and ``1-9A-P`` for 25x25. The canonical one-line text
of a puzzle writes its cells row by row with ``.`` for an empty cell.

When reading, ``.``, ``0``, ``-``, ``_`` and ``*`` mark an empty cell, letters are
case-insensitive, and these common alternatives are also accepted:

* 16x16: hexadecimal ``0-F`` (``0`` is then a digit, the 1st symbol) and letters ``A-P``;
* 25x25: letters ``A-Y`` and zero-based ``0-9A-O``.

The alphabet is detected from the characters a puzzle uses. The first alphabet, in the order
canonical, letters, zero-based, that explains every character wins, except that a ``0`` seen
beside another empty marker means ``0`` is a digit, so the zero-based alphabet is chosen.
Pass ``alphabet=`` to :meth:`Puzzle.parse` to remove any doubt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

from backends.errors import PuzzleError

#: Box sides the project supports, and the grid sides they give.
BOX_SIDES: tuple[int, ...] = (2, 3, 4, 5)
SIZES: dict[int, int] = {box * box: box for box in BOX_SIDES}  # n -> box
CELL_COUNTS: dict[int, int] = {n * n: n for n in SIZES}  # number of cells -> n

EMPTY_MARKS: frozenset[str] = frozenset(".0-_*")
_DIGITS_AND_LETTERS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

Cell = int
Digit = int
Unit = tuple[Cell, ...]
Grid = tuple[Digit, ...]


def canonical_alphabet(n: int) -> str:
    """The canonical symbols for digits ``1..n``: ``1-9`` then ``A``, ``B``, ..."""
    return _DIGITS_AND_LETTERS[:n]


def grid_text(n: int, cells: Sequence[int]) -> str:
    """A backend's answer as one line of canonical symbols; ``?`` for what is not a digit.

    For a valid grid this is :meth:`Puzzle.to_string`; a wrong one is still written down,
    as far as it can be, so the row shows what the backend answered.
    """
    table = _GRID_TABLES.get(n)
    if table is None:
        symbols = ("." + canonical_alphabet(n)).encode()
        table = _GRID_TABLES[n] = symbols + b"?" * (256 - len(symbols))
    try:  # every value a byte (the common case): one translation
        return bytes(cells).translate(table).decode()
    except (ValueError, TypeError):  # a value below 0, above 255, or not an integer
        return "".join(chr(table[d]) if 0 <= d <= n else "?" for d in cells)


#: Per grid side n: the byte that stands for each value 0..255 in :func:`grid_text`.
_GRID_TABLES: dict[int, bytes] = {}


def alphabets(n: int) -> dict[str, str]:
    """Every alphabet accepted for grid side ``n``, by name, canonical first."""
    result = {"canonical": canonical_alphabet(n)}
    if n > 9:
        result["letters"] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:n]
        result["zero-based"] = ("0123456789" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ")[:n]
    return result


@dataclass(frozen=True)
class Geometry:
    """Cells, units and peers of one grid size. Get one with :func:`geometry`."""

    box: int
    n: int = field(init=False)
    ncells: int = field(init=False)
    rows: tuple[Unit, ...] = field(init=False, repr=False)
    cols: tuple[Unit, ...] = field(init=False, repr=False)
    boxes: tuple[Unit, ...] = field(init=False, repr=False)
    units: tuple[Unit, ...] = field(init=False, repr=False)
    units_of: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    peers: tuple[tuple[Cell, ...], ...] = field(init=False, repr=False)
    row_of: tuple[int, ...] = field(init=False, repr=False)
    col_of: tuple[int, ...] = field(init=False, repr=False)
    box_of: tuple[int, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        box = self.box
        n = box * box
        cells = range(n * n)
        row_of = tuple(c // n for c in cells)
        col_of = tuple(c % n for c in cells)
        box_of = tuple((r // box) * box + c // box for r, c in zip(row_of, col_of, strict=True))
        rows = tuple(tuple(c for c in cells if row_of[c] == i) for i in range(n))
        cols = tuple(tuple(c for c in cells if col_of[c] == i) for i in range(n))
        boxes = tuple(tuple(c for c in cells if box_of[c] == i) for i in range(n))
        units = rows + cols + boxes  # unit index: rows 0..n-1, columns n..2n-1, boxes 2n..3n-1
        units_of = tuple((row_of[c], n + col_of[c], 2 * n + box_of[c]) for c in cells)
        peers = tuple(
            tuple(sorted({p for u in units_of[c] for p in units[u]} - {c})) for c in cells
        )
        for name, value in (
            ("n", n),
            ("ncells", n * n),
            ("rows", rows),
            ("cols", cols),
            ("boxes", boxes),
            ("units", units),
            ("units_of", units_of),
            ("peers", peers),
            ("row_of", row_of),
            ("col_of", col_of),
            ("box_of", box_of),
        ):
            object.__setattr__(self, name, value)

    def unit_name(self, unit: int) -> str:
        """A person's name for unit index ``unit``: 'row 3', 'column 7' or 'box 5' (1-based)."""
        kind, index = divmod(unit, self.n)
        return f"{('row', 'column', 'box')[kind]} {index + 1}"

    def cell_name(self, cell: Cell) -> str:
        """The r/c name of a cell, 1-based: 'r3c5'."""
        return f"r{self.row_of[cell] + 1}c{self.col_of[cell] + 1}"


@cache
def geometry(box: int) -> Geometry:
    """The (cached) geometry for box side ``box``."""
    if box not in BOX_SIDES:
        raise PuzzleError(f"box side {box!r} is not supported; expected one of {BOX_SIDES}")
    return Geometry(box)


def geometry_for_cells(ncells: int) -> Geometry:
    """The geometry whose grid has ``ncells`` cells (16, 81, 256 or 625)."""
    if ncells not in CELL_COUNTS:
        raise PuzzleError(
            f"{ncells} cells is not a Sudoku grid; expected one of {sorted(CELL_COUNTS)}"
        )
    return geometry(SIZES[CELL_COUNTS[ncells]])


def detect_alphabet(text: str, n: int) -> str:
    """The alphabet (a string of ``n`` symbols) that explains the characters of ``text``.

    See the module docstring for the rule. Raises :class:`PuzzleError` naming the first
    character no alphabet explains.
    """
    used = set(text.upper())
    options = alphabets(n)
    other_empties = used & (EMPTY_MARKS - {"0"})
    if n > 9 and "0" in used and other_empties:
        candidate = options["zero-based"]
        if used <= set(candidate) | EMPTY_MARKS:
            return candidate
    for candidate in options.values():
        if used <= set(candidate) | EMPTY_MARKS:
            return candidate
    canonical = options["canonical"]
    bad = next(ch for ch in text if ch.upper() not in set(canonical) | EMPTY_MARKS)
    raise PuzzleError(
        f"bad character {bad!r} for a {n}x{n} grid; expected {_describe(canonical)} "
        f"or an empty mark (one of {''.join(sorted(EMPTY_MARKS))})"
    )


def _describe(alphabet: str) -> str:
    return f"{alphabet[0]}-{alphabet[-1]}" if len(alphabet) <= 9 else f"1-9, A-{alphabet[-1]}"


@dataclass(frozen=True)
class Puzzle:
    """An immutable grid of ``n*n`` digits, ``0`` for empty. Build one with :meth:`parse`.

    ``cells`` is a tuple of ints in row-major order. A Puzzle makes no promise of validity:
    two equal givens in one unit are reported by :meth:`conflicts`, not refused, so that a
    backend can be asked to prove such a puzzle UNSAT.
    """

    box: int
    cells: Grid
    #: ``cells`` as bytes, one a cell (every digit of a grid up to 25x25 fits one).
    digits: bytes = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        geo = geometry(self.box)
        if len(self.cells) != geo.ncells:
            raise PuzzleError(
                f"a {geo.n}x{geo.n} puzzle has {geo.ncells} cells, got {len(self.cells)}"
            )
        bad = [d for d in self.cells if not (isinstance(d, int) and 0 <= d <= geo.n)]
        if bad:
            raise PuzzleError(f"digit {bad[0]!r} out of range 0..{geo.n}")
        object.__setattr__(self, "digits", bytes(self.cells))

    @classmethod
    def parse(cls, text: str, alphabet: str | None = None) -> Puzzle:
        """Read a puzzle from its one-line text (no separators). See the module docstring."""
        text = text.strip()
        geo = geometry_for_cells(len(text))
        symbols = alphabet.upper() if alphabet else detect_alphabet(text, geo.n)
        value = {ch: i + 1 for i, ch in enumerate(symbols)}
        cells = []
        for ch in text.upper():
            if ch in value:
                cells.append(value[ch])
            elif ch in EMPTY_MARKS:
                cells.append(0)
            else:
                raise PuzzleError(f"bad character {ch!r} for alphabet {symbols}")
        return cls(geo.box, tuple(cells))

    @classmethod
    def unchecked(cls, box: int, cells: Grid) -> Puzzle:
        """A puzzle from cells already checked by a :class:`Puzzle` (say, one rebuilt in
        another process from its ``cells``): no validation."""
        puzzle = object.__new__(cls)
        object.__setattr__(puzzle, "box", box)
        object.__setattr__(puzzle, "cells", cells)
        object.__setattr__(puzzle, "digits", bytes(cells))
        return puzzle

    @classmethod
    def from_digits(cls, digits: Grid) -> Puzzle:
        """A puzzle from a sequence of ints (0 = empty), its size taken from the length."""
        return cls(geometry_for_cells(len(digits)).box, tuple(digits))

    @property
    def geometry(self) -> Geometry:
        return geometry(self.box)

    @property
    def n(self) -> int:
        return self.box * self.box

    @property
    def givens(self) -> int:
        """How many cells are filled."""
        return sum(1 for d in self.cells if d)

    @property
    def is_complete(self) -> bool:
        return all(self.cells)

    def to_string(self) -> str:
        """The canonical one-line text: canonical symbols, ``.`` for empty."""
        symbols = "." + canonical_alphabet(self.n)
        return "".join(symbols[d] for d in self.cells)

    __str__ = to_string

    def pretty(self) -> str:
        """A multi-line grid with box separators, for people."""
        geo = self.geometry
        symbols = "." + canonical_alphabet(self.n)
        rule = "+".join(["-" * (2 * self.box + 1)] * self.box)[1:-1]
        lines = []
        for r in range(geo.n):
            if r and r % self.box == 0:
                lines.append(rule)
            row = self.cells[r * geo.n : (r + 1) * geo.n]
            groups = (
                " ".join(symbols[d] for d in row[b : b + self.box])
                for b in range(0, geo.n, self.box)
            )
            lines.append(" | ".join(groups))
        return "\n".join(lines)

    def with_cell(self, cell: Cell, digit: Digit) -> Puzzle:
        """A copy with one cell changed."""
        cells = list(self.cells)
        cells[cell] = digit
        return Puzzle(self.box, tuple(cells))

    def conflicts(self) -> list[tuple[int, Digit]]:
        """Every (unit index, digit) where a digit is given more than once in a unit."""
        geo = self.geometry
        found = []
        for u, unit in enumerate(geo.units):
            seen: set[int] = set()
            for cell in unit:
                d = self.cells[cell]
                if d and d in seen and (u, d) not in found:
                    found.append((u, d))
                seen.add(d)
        return found

    def symbol(self, digit: Digit) -> str:
        """The canonical symbol of a digit."""
        return canonical_alphabet(self.n)[digit - 1]
