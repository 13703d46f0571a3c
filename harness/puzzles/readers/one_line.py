"""The one-line layout: a puzzle's symbols, then metadata, maybe with tdoku's count and solution.

``PUZZLE [META]``: the meta is kept raw. A meta field (between whitespace and ``: ; , # |``)
with the grid's number of characters, at least half of them symbols, is the expected solution.
tdoku's ``PUZZLE:COUNT:SOLUTION`` gives the expected number of solutions and, when the third
field is not empty, the solution; ``PUZZLE:COUNT`` the count alone. A field that claims to be a
solution without being one (at least three quarters of the grid's length, mostly symbols, but
not the grid's length, such as ``:1:`` and 80 cells) makes the line bad.
"""

from __future__ import annotations

import re
from functools import cache

from backends.puzzle import CELL_COUNTS
from harness.puzzles.readers.check import PendingPuzzle
from harness.puzzles.readers.messages import solution_length
from harness.puzzles.readers.symbols import foreign_chars, is_count

_TDOKU_COUNT = re.compile(r":\s*(\d{1,18})(?!\d)")
_FIELD = re.compile(r"[^\s:;,#|]+")


@cache
def _meta_field(ncells: int) -> re.Pattern[str]:
    """Finds metadata fields of exactly ``ncells`` characters (candidate solutions)."""
    return re.compile(rf"(?<![^\s:;,#|])[^\s:;,#|]{{{ncells}}}(?![^\s:;,#|])")


def one_line(number: int, raw: str, token: str, meta: str) -> PendingPuzzle | str:
    """A one-line puzzle with its expected count and solution, or why the line is bad."""
    ncells = len(token)
    count = None
    if meta[:1] == ":":
        parts = meta.split(":")
        if len(parts) == 3 and is_count(parts[1]) and len(parts[2]) in (0, ncells):
            return PendingPuzzle(number, token, raw, meta, parts[2] or None, int(parts[1]))
        match = _TDOKU_COUNT.match(meta)
        if match:
            count = int(match.group(1))
    if not meta:
        return PendingPuzzle(number, token, raw)
    if 4 * len(meta) < 3 * ncells:  # too short to hold a solution, right or wrong (a rating)
        return PendingPuzzle(number, token, raw, meta, None, count)
    solution = _solution(meta, ncells)
    if solution is None:
        claim = _false_claim(meta, ncells)
        if claim is not None:
            return solution_length(len(claim), ncells)
    return PendingPuzzle(number, token, raw, meta, solution, count)


def _solution(meta: str, ncells: int) -> str | None:
    """The first meta field of the grid's length with at least half its cells symbols."""
    n = CELL_COUNTS[ncells]
    for match in _meta_field(ncells).finditer(meta):
        field = match.group()
        if 2 * foreign_chars(field, n) <= ncells:
            return field
    return None


def _false_claim(meta: str, ncells: int) -> str | None:
    """A meta field that looks like a solution of the wrong length, if any."""
    n = CELL_COUNTS[ncells]
    for match in _FIELD.finditer(meta):
        field = match.group()
        size = len(field)
        if 4 * size >= 3 * ncells and size != ncells and 2 * foreign_chars(field, n) <= size:
            return field
    return None
