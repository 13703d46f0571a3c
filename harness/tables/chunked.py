"""Statistics of values read a chunk at a time, in memory that does not grow with their
number: the count, sum, largest and zeros in one pass, and the exact median by selection.

The values come from ``pieces``, a function that yields them anew on each call (one 1-D
float array a chunk, every value known). The median needs a few more passes: each counts
the values by the leading bits of their order-preserving 64-bit keys (a float's bits with
the sign handled, so that keys sort as the floats do), keeps the range that holds the
middle value, and gathers the values there once they are few (at most :data:`GATHER`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np

#: A function that yields the values, a chunk at a time, each time it is called.
Pieces = Callable[[], Iterable[np.ndarray]]
#: Bits of the key each counting pass looks at (its buckets: 2**BITS).
BITS = 16
#: Values gathered at most to find the middle ones among them.
GATHER = 1 << 16
_SIGN = np.uint64(1 << 63)
_REST = np.uint64((1 << 63) - 1)


@dataclass
class Statistics:
    """How many values, their sum, the largest, how many are 0, and their median (NaN,
    the largest and the median, where there are none)."""

    count: int
    total: float
    maximum: float
    zeros: int
    median: float

    @property
    def mean(self) -> float:
        return self.total / self.count if self.count else math.nan


def describe(pieces: Pieces, median: bool = True) -> Statistics:
    """The statistics of the values ``pieces`` yields (the median only if ``median``). The
    sum adds each chunk's (summed pairwise, as numpy does) in order, in double precision."""
    count = zeros = 0
    total, maximum = 0.0, -math.inf
    tally = _Tally(0, 64)  # the first counting pass of the median
    for values in pieces():
        if len(values):
            count += len(values)
            total += float(values.sum(dtype=np.float64))
            maximum = max(maximum, float(values.max()))
            zeros += int(np.count_nonzero(values == 0))
            if median:
                tally.add(_keys(values))
    if not count:
        return Statistics(0, 0.0, math.nan, 0, math.nan)
    middle = _median(pieces, count, tally) if median else math.nan
    return Statistics(count, total, maximum, zeros, middle)


def _keys(values: np.ndarray) -> np.ndarray:
    """Unsigned 64-bit keys in the order of the floats ``values`` (-0.0 just below 0.0)."""
    bits = values.astype(np.float64).view(np.uint64)
    return bits ^ (_SIGN | (bits >> np.uint64(63)) * _REST)


def _value(key: int) -> float:
    """The float of a key (:func:`_keys` undone)."""
    bits = key ^ (1 << 63) if key >> 63 else key ^ ((1 << 64) - 1)
    return float(np.array([bits], dtype=np.uint64).view(np.float64)[0])


def _ranged(pieces: Pieces, start: int, span: int) -> Iterator[np.ndarray]:
    """The keys in [start, start + 2**span) of each chunk."""
    for values in pieces():
        keys = _keys(values)
        if span < 64:
            keys = keys[(keys - np.uint64(start)) >> np.uint64(span) == 0]
        yield keys


class _Tally:
    """Keys of [start, start + 2**span) counted by their next :data:`BITS` bits (a bucket
    each value of those bits), and the least and the largest of them."""

    def __init__(self, start: int, span: int) -> None:
        self.start, self.shift = start, max(span - BITS, 0)
        self.counts = np.zeros(1 << BITS, dtype=np.int64)
        self.least, self.largest = (1 << 64) - 1, 0

    def add(self, keys: np.ndarray) -> None:
        """Count ``keys`` (in the range)."""
        if len(keys):
            buckets = ((keys - np.uint64(self.start)) >> np.uint64(self.shift)).astype(np.intp)
            self.counts += np.bincount(buckets, minlength=len(self.counts))
            self.least = min(self.least, int(keys.min()))
            self.largest = max(self.largest, int(keys.max()))

    def bucket(self, at: int) -> tuple[int, int]:
        """The range of bucket ``at``: its first key and its span."""
        return self.start + (at << self.shift), self.shift


def _tally(pieces: Pieces, start: int, span: int) -> _Tally:
    tally = _Tally(start, span)
    for keys in _ranged(pieces, start, span):
        tally.add(keys)
    return tally


def _median(pieces: Pieces, count: int, tally: _Tally) -> float:
    """The median of the ``count`` values (``tally``: all their keys counted): the middle
    one, or the mean of the middle two."""
    ranks = ((count - 1) // 2, count // 2)  # of the middle ones (0: the least)
    below = 0  # values under the tally's range
    while True:
        if tally.least == tally.largest:  # the range holds one value, and the middle ones
            return _value(tally.least)
        ends = np.cumsum(tally.counts) + below
        first, last = (int(np.searchsorted(ends, rank, side="right")) for rank in ranks)
        if first != last:  # the middle two apart: the first bucket's largest, the last's least
            low, high = _tally(pieces, *tally.bucket(first)), _tally(pieces, *tally.bucket(last))
            return (_value(low.largest) + _value(high.least)) / 2
        below = int(ends[first] - tally.counts[first])
        start, span = tally.bucket(first)
        if span == 0:  # one key
            return _value(start)
        if tally.counts[first] <= GATHER:
            keys = np.concatenate([np.empty(0, np.uint64), *_ranged(pieces, start, span)])
            at = [rank - below for rank in ranks]
            keys.partition(at)
            return (_value(int(keys[at[0]])) + _value(int(keys[at[1]]))) / 2
        tally = _tally(pieces, start, span)
