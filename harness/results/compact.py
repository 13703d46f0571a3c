"""A run's rows as compact columns: what the end of a run needs, a few bytes a row.

The writer drops each row once it is written; :class:`CompactRows` keeps of it only what the
cross-check, the tables, the failure lines and the exit code read: codes for the dataset,
backend and status, the line, size, repeat and solution count as small integers, the times
and counters as floats (NaN where unknown), native statistics likewise, and, under
``--limit-solutions 2``, a hash of the solution (two checked solutions differ where their
hashes do). About 60 bytes a row, against some 3 KB for the row itself.

Only the status (1 byte a row) stays in memory: every other column is a :class:`Spilled`
one, its last :data:`BLOCK` rows in memory and the rest in an unnamed temporary file (beside
the CSV in a run), written a block at a time; the end of the run reads a column back when it
needs it, one at a time, so that its memory grows by a few bytes a row, not 60.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
import weakref
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from backends.base import Status
from harness.results.schema import BASE_COLUMNS, DECIMALS

if TYPE_CHECKING:
    import numpy as np

#: The statuses by code (the code of a status is its position).
STATUSES: tuple[str, ...] = tuple(s.value for s in Status)
_STATUS_CODE = {**{s: i for i, s in enumerate(STATUSES)}, **{s: i for i, s in enumerate(Status)}}
#: The float columns kept for every row.
FLOATS = ("encode_s", "solve_s", "solve_cpu_s", "own_solve_s", "nodes", "guesses")
#: How each is kept: times and counters in double precision (the tables print what pandas
#: computes from the CSV), guesses in single (whole numbers exact up to 2**24, a mean and a
#: share of zeros printed to 3 figures).
FLOAT_TYPES = {name: "d" for name in FLOATS} | {"guesses": "f"}
#: Rows a spilled column holds in memory before it appends them to its file.
BLOCK = 1 << 14
#: Rows read back from a file at a time.
READ = 1 << 14
#: The statuses whose messages the failure lines sum up.
FAILURES = (Status.WRONG.value, Status.ERROR.value, Status.MEMOUT.value)
#: The most distinct message shapes kept per failing status (the rest are counted only).
MAX_SHAPES = 1000
_FAILING = frozenset(STATUSES.index(s) for s in FAILURES)
_SOLVED = STATUSES.index(Status.SOLVED.value)
#: The integer columns kept in files, and their array type codes (a line past 2**32, in a
#: file of 300 GB, would not fit), in the order :meth:`CompactRows.add` unpacks their appends.
SPILLED = {"dataset": "H", "backend": "H", "line": "I", "size": "B", "repeat": "I"}
SPILLED |= {"solutions": "b", "hash": "q"}
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


class Spilled:
    """One column of :class:`CompactRows`: its last rows in ``block`` (at most :data:`BLOCK`),
    the earlier ones in an unnamed temporary file in ``folder`` (None: the system's)."""

    def __init__(self, typecode: str, folder: str | None) -> None:
        self.typecode, self.folder = typecode, folder
        self.block = array(typecode)  # the same object for good: callers keep its append
        self.stored = 0  # rows in the file
        self.file: IO[bytes] | None = None

    def __len__(self) -> int:
        return self.stored + len(self.block)

    def spill(self) -> None:
        """Append the rows in memory to the file."""
        if self.block:
            if self.file is None:
                # open as long as the column lives (the system deletes it on close)
                self.file = tempfile.TemporaryFile(dir=self.folder)  # noqa: SIM115
                weakref.finalize(self, self.file.close)
            self.file.seek(0, os.SEEK_END)
            self.block.tofile(self.file)
            self.stored += len(self.block)
            del self.block[:]

    def fill(self, value: float | int, count: int) -> None:
        """Append ``count`` rows of ``value`` (a column that begins mid-run)."""
        while count:
            step = min(count, BLOCK - len(self.block))
            self.block.extend(array(self.typecode, [value]) * step)
            count -= step
            if len(self.block) == BLOCK:
                self.spill()

    def chunks(self) -> Iterator[array]:
        """The column in order, :data:`READ` rows at a time (the last chunk from memory)."""
        if self.file is not None:
            self.file.seek(0)
            left = self.stored
            while left:
                chunk = array(self.typecode)
                chunk.fromfile(self.file, min(left, READ))
                left -= len(chunk)
                yield chunk
        yield self.block

    def __getitem__(self, index: int) -> Any:
        if index >= self.stored:
            return self.block[index - self.stored]
        assert self.file is not None
        self.file.seek(index * self.block.itemsize)
        return array(self.typecode, self.file.read(self.block.itemsize))[0]

    # -- as numpy arrays: numpy is imported only here, at the end of the run --------------

    def array(self, dtype: Any = None) -> np.ndarray:
        """The whole column (a new array; of ``dtype`` if given, converted a chunk at a
        time)."""
        import numpy as np

        out = np.empty(len(self), dtype=dtype or _dtype(self.typecode))
        done = 0
        for chunk in self.pieces():
            out[done : done + len(chunk)] = chunk
            done += len(chunk)
        return out

    def pieces(self, size: int | None = None) -> Iterator[np.ndarray]:
        """The column as arrays of ``size`` rows (default :data:`READ`; the last one
        shorter), as an array in memory splits: the file's rows and the block's joined."""
        import numpy as np

        size = size or READ
        dtype = _dtype(self.typecode)
        left = np.empty(0, dtype=dtype)
        for chunk in self.chunks():
            values = np.frombuffer(chunk, dtype=dtype)
            if chunk is self.block:  # a copy: the block stays free to grow
                values = values.copy()
            if len(left):
                values = np.concatenate((left, values))
            whole = len(values) - len(values) % size
            for start in range(0, whole, size):
                yield values[start : start + size]
            left = values[whole:]
        if len(left):
            yield left


def _dtype(typecode: str) -> str:
    """The numpy type of an array type code (its size as the array module has it)."""
    kind = "f" if typecode in "fd" else "i" if typecode.islower() else "u"
    return f"{kind}{array(typecode).itemsize}"


class CompactRows:
    """The rows of a results CSV, in file order, as compact columns (see the module); the
    spilled ones' files go in ``folder`` (None: the system's temporary folder)."""

    def __init__(self, limit: int, folder: str | Path | None = None) -> None:
        self.limit = limit
        self.folder = None if folder is None else str(folder)
        self.datasets, self.backends = Labels(), Labels()
        self.status = array("B")
        spilled = {name: self._spilled(code) for name, code in SPILLED.items()}
        self.spilled = spilled
        self.floats = {name: self._spilled(FLOAT_TYPES[name]) for name in FLOATS}
        self.native: dict[str, Spilled] = {}
        self.repeated = False  # some repeat is not 0
        self.not_numbers: set[str] = set()  # native columns that held text
        self.shapes: dict[str, dict[str, list[Any]]] = {s: {} for s in FAILURES}
        self._appends = tuple(column.block.append for column in spilled.values())
        self._floats = [(name, column.block.append) for name, column in self.floats.items()]
        self._pending = 0  # rows since the columns last spilled

    def _spilled(self, typecode: str) -> Spilled:
        return Spilled(typecode, self.folder)

    def __len__(self) -> int:
        return len(self.status)

    def add(self, row: Mapping[str, Any]) -> None:
        """Keep what the end of the run reads of ``row`` (typed values or the CSV's text)."""
        get = row.get
        status = _STATUS_CODE[get("status")]
        dataset, backend, line, size, repeat, solutions, hashed = self._appends
        dataset(self.datasets.code(get("dataset")))
        backend(self.backends.code(get("backend")))
        line(int(get("line")))
        value = get("size")
        size(value if value.__class__ is int else _whole(value, 0))
        value = int(get("repeat"))
        if value:
            self.repeated = True
        repeat(value)
        self.status.append(status)
        value = get("solutions")
        solutions(value if value.__class__ is int else _whole(value, -1))
        if self.limit == 2:
            hashed(hash(get("solution")) if status == _SOLVED else 0)
        for name, keep in self._floats:  # as the CSV has it, so the tables print the same
            value = get(name)
            kind = value.__class__
            keep(
                round(value, DECIMALS) if kind is float else value if kind is int else number(value)
            )
        if self.native:
            self._natives(get)
        if status in _FAILING:
            self._failure(STATUSES[status], get("message") or "(no message)")
        self._pending += 1
        if self._pending == BLOCK:
            self._spill()

    def _spill(self) -> None:
        for column in (*self.spilled.values(), *self.floats.values(), *self.native.values()):
            column.spill()
        self._pending = 0

    def _natives(self, get: Callable[[str], Any]) -> None:
        for name, column in self.native.items():
            value = get(name)
            parsed = round(value, DECIMALS) if value.__class__ is float else number(value)
            column.block.append(parsed)
            if parsed != parsed and value not in (None, "") and value.__class__ is not float:
                self.not_numbers.add(name)  # text: not a statistic (nor for pandas)

    def add_native(self, names: Iterable[str]) -> None:
        """Keep these columns too, when they are native statistics (empty so far)."""
        for name in names:
            if name not in BASE_COLUMNS and name not in self.native:
                column = self.native[name] = self._spilled("d")
                column.fill(NAN, len(self) - self._pending)
                column.spill()  # in step with the others: the rows since their last spill
                column.fill(NAN, self._pending)

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
        codes, at = set(), 0
        for backends in self.spilled["backend"].chunks():
            status = self.status[at : at + len(backends)]
            at += len(backends)
            codes.update(s for s, b in zip(status, backends, strict=True) if b not in left_out)
        return {status for code, status in enumerate(STATUSES) if code in codes}

    # -- as numpy arrays: numpy is imported only here, at the end of the run --------------

    def statuses(self) -> np.ndarray:
        """The status codes (a view: :meth:`mark_wrong` changes them)."""
        import numpy as np

        return np.frombuffer(self.status, dtype=np.uint8)

    def codes(self, name: str, dtype: Any = None) -> np.ndarray:
        """A column of :data:`SPILLED` (dataset, backend, line, size, repeat, solutions,
        hash) as an array read back (a new one; of ``dtype`` if given)."""
        return self.spilled[name].array(dtype)

    def column(self, name: str) -> Spilled:
        """A float column (:data:`FLOATS` or native): its :meth:`Spilled.array` reads it
        back whole, its :meth:`Spilled.pieces` a chunk at a time."""
        found = self.floats.get(name)
        return self.native[name] if found is None else found

    def puzzle_ids(self) -> np.ndarray:
        """One int64 a row naming its puzzle: its dataset's code and its line."""
        import numpy as np

        ids = self.codes("dataset").astype(np.int64) << 40
        ids |= self.codes("line")
        return ids

    def natives(self) -> list[str]:
        """The native statistics that held numbers only."""
        return [name for name in self.native if name not in self.not_numbers]
