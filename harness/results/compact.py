"""A run's rows as compact columns: what the end of a run needs, a few bytes a row.

The writer drops each row once it is written; :class:`CompactRows` keeps of it only what the
cross-check, the tables, the failure lines and the exit code read: codes for the dataset,
backend and status, the line, size, repeat and solution count as small integers, the times
and counters as floats (NaN where unknown), native statistics likewise, and, under
``--limit-solutions 2``, a hash of the solution (two checked solutions differ where their
hashes do). About 40 bytes a row, against some 3 KB for the row itself.
"""

from __future__ import annotations

import math
import re
from array import array
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from backends.base import Status
from harness.results.schema import BASE_COLUMNS

if TYPE_CHECKING:
    import numpy as np

#: The statuses by code (the code of a status is its position).
STATUSES: tuple[str, ...] = tuple(s.value for s in Status)
_STATUS_CODE = {**{s: i for i, s in enumerate(STATUSES)}, **{s: i for i, s in enumerate(Status)}}
#: The float columns kept for every row.
FLOATS = ("encode_s", "solve_s", "own_solve_s", "nodes", "guesses")
#: How each is kept: times and counters in double precision (the tables print what pandas
#: computes from the CSV), guesses in single (whole numbers exact up to 2**24, a mean and a
#: share of zeros printed to 3 figures).
FLOAT_TYPES = {"encode_s": "d", "solve_s": "d", "own_solve_s": "d", "nodes": "d", "guesses": "f"}
#: The statuses whose messages the failure lines sum up.
FAILURES = (Status.WRONG.value, Status.ERROR.value, Status.MEMOUT.value)
#: The most distinct message shapes kept per failing status (the rest are counted only).
MAX_SHAPES = 1000
_FAILING = frozenset(STATUSES.index(s) for s in FAILURES)
_DIGITS = re.compile(r"\d+(\.\d+)?")
NAN = math.nan


def number(value: Any) -> float:
    """A cell as a float: itself if one, NaN where empty or not a number."""
    if value.__class__ is float:
        return value  # type: ignore[no-any-return]
    if value is None or value == "":
        return NAN
    try:
        return float(value)
    except (TypeError, ValueError):
        return NAN


def _whole(value: Any, unknown: int) -> int:
    if value is None or value == "":
        return unknown
    try:
        return int(value)
    except (TypeError, ValueError):
        return unknown


class Labels:
    """Codes for the distinct values of a text column (a dataset, a backend)."""

    def __init__(self) -> None:
        self.values: list[str] = []
        self._codes: dict[str, int] = {}

    def code(self, value: Any) -> int:
        found = self._codes.get(value)
        if found is None:
            text = str(value)
            found = self._codes.get(text)
            if found is None:
                found = self._codes[text] = len(self.values)
                self.values.append(text)
            if isinstance(value, str):  # a str subclass (a Status) hashes as its text
                self._codes[value] = found
        return found


class CompactRows:
    """The rows of a results CSV, in file order, as compact columns (see the module)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.datasets, self.backends = Labels(), Labels()
        self.dataset, self.backend = array("H"), array("H")
        self.line = array("I")  # a line past 2**32 (a file of 300 GB) would not fit
        self.hash = array("q")
        self.size = array("B")
        self.repeat = array("I")  # empty while every repeat is 0 (--repeat 1)
        self.status, self.solutions = array("B"), array("b")
        self.floats = {name: array(FLOAT_TYPES[name]) for name in FLOATS}
        self._floats = list(self.floats.items())
        self.native: dict[str, array] = {}
        self.not_numbers: set[str] = set()  # native columns that held text
        self.shapes: dict[str, dict[str, list[Any]]] = {s: {} for s in FAILURES}

    def __len__(self) -> int:
        return len(self.status)

    def add(self, row: Mapping[str, Any]) -> None:
        """Keep what the end of the run reads of ``row`` (typed values or the CSV's text)."""
        get = row.get
        status = _STATUS_CODE[get("status")]
        self.dataset.append(self.datasets.code(get("dataset")))
        self.backend.append(self.backends.code(get("backend")))
        self.line.append(int(get("line")))
        size, solutions = get("size"), get("solutions")
        self.size.append(size if size.__class__ is int else _whole(size, 0))
        repeat = int(get("repeat"))
        if repeat or self.repeat:
            if not self.repeat:
                self.repeat = array("I", bytes(4 * len(self.status)))
            self.repeat.append(repeat)
        self.status.append(status)
        self.solutions.append(solutions if solutions.__class__ is int else _whole(solutions, -1))
        if self.limit == 2:
            solved = STATUSES[status] == Status.SOLVED
            self.hash.append(hash(get("solution")) if solved else 0)
        for name, column in self._floats:
            value = get(name)
            column.append(value if value.__class__ is float else number(value))
        if self.native:
            self._natives(get)
        if status in _FAILING:
            self._failure(STATUSES[status], get("message") or "(no message)")

    def _natives(self, get: Callable[[str], Any]) -> None:
        for name, column in self.native.items():
            value = get(name)
            column.append(parsed := number(value))
            if parsed != parsed and value not in (None, "") and value.__class__ is not float:
                self.not_numbers.add(name)  # text: not a statistic (nor for pandas)

    def add_native(self, names: Iterable[str]) -> None:
        """Keep these columns too, when they are native statistics (empty so far)."""
        for name in names:
            if name not in BASE_COLUMNS and name not in self.native:
                self.native[name] = array("d", [NAN]) * len(self)

    def _failure(self, status: str, message: str) -> None:
        shapes = self.shapes[status]
        shape = _DIGITS.sub("#", message)
        seen = shapes.get(shape)
        if seen is not None:
            seen[0] += 1
        elif len(shapes) < MAX_SHAPES:
            shapes[shape] = [1, message]

    def mark_wrong(self, index: int, message: str) -> None:
        """Row ``index`` became WRONG (the cross-check refuted it)."""
        self.status[index] = _STATUS_CODE[Status.WRONG]
        self._failure(Status.WRONG.value, message)

    def failure_lines(self) -> list[str]:
        """One line per failing status (WRONG, ERROR, MEMOUT) naming its most common reason."""
        lines = []
        for status in FAILURES:
            total = self.status.count(STATUSES.index(status))
            shapes = self.shapes[status]
            if total and shapes:
                count, example = max(shapes.values(), key=lambda seen: seen[0])
                lines.append(f"{status}: {total} row(s); most common reason ({count}): {example}")
        return lines

    def present(self, excluding: set[str] | frozenset[str] = frozenset()) -> set[str]:
        """The statuses some row has (of a backend not in ``excluding``)."""
        if not excluding:
            return {status for code, status in enumerate(STATUSES) if code in self.status}
        left_out = {self.backends.code(spec) for spec in excluding}
        codes = {s for s, b in zip(self.status, self.backend, strict=True) if b not in left_out}
        return {status for code, status in enumerate(STATUSES) if code in codes}

    # -- as numpy arrays (views, no copies): numpy is imported only here, at the end ------

    def statuses(self) -> np.ndarray:
        import numpy as np

        return np.frombuffer(self.status, dtype=np.uint8)

    def column(self, name: str) -> np.ndarray:
        """A float column (:data:`FLOATS` or native) as a float array (a view)."""
        import numpy as np

        source = self.floats.get(name)
        source = self.native[name] if source is None else source
        return np.frombuffer(source, dtype=np.float32 if source.typecode == "f" else np.float64)

    def puzzle_ids(self) -> np.ndarray:
        """One int64 a row naming its puzzle: its dataset's code and its line."""
        import numpy as np

        ids = np.frombuffer(self.dataset, dtype=np.uint16).astype(np.int64) << 40
        ids |= np.frombuffer(self.line, dtype=np.uint32)
        return ids

    def natives(self) -> list[str]:
        """The native statistics that held numbers only."""
        return [name for name in self.native if name not in self.not_numbers]
