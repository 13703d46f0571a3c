"""Statistics a chunk at a time (tables.chunked): numpy's figures, in bounded memory."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
from harness.results.compact import CompactRows, Spilled
from harness.tables.rows import Coded

from harness.tables import chunked, summary


def pieces_of(values: np.ndarray, size: int) -> chunked.Pieces:
    return lambda: (values[i : i + size] for i in range(0, len(values), size))


SAMPLES = {
    "uniform": lambda rng, n: rng.random(n),
    "few integers": lambda rng, n: rng.integers(0, 5, n).astype(float),
    "normal": lambda rng, n: rng.normal(size=n),
    "signed zeros": lambda rng, n: np.where(rng.random(n) < 0.5, 0.0, -0.0),
    "infinities": lambda rng, n: rng.choice([-np.inf, np.inf, 1.0, -2.5, 0.0], n),
    "tiny": lambda rng, n: rng.random(n) * 1e-300,
    "large integers": lambda rng, n: rng.integers(0, 2**60, n).astype(float),
    "three values": lambda rng, n: rng.choice(rng.random(3), n),
    "lognormal": lambda rng, n: rng.lognormal(-7, 1, n),
    "neighbours": lambda rng, n: 1.0 + rng.integers(0, 40, n) * np.finfo(float).eps,
}


# the samples' sum of +inf and -inf is NaN, which numpy warns of; the median is the subject
@pytest.mark.filterwarnings("ignore:invalid value encountered in reduce:RuntimeWarning")
@pytest.mark.parametrize("gather", [4, 1 << 16])
@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_the_median_by_selection_is_numpys(monkeypatch, name: str, gather: int) -> None:
    """The median, read 7 values at a time and gathering few, is numpy's."""
    monkeypatch.setattr(chunked, "GATHER", gather)
    rng = np.random.default_rng(len(name))
    for count in (1, 2, 3, 4, 5, 10, 101, 1000, 4000):
        values = SAMPLES[name](rng, count)
        expected = float(np.median(values))
        assert expected == chunked.describe(pieces_of(values, 7)).median


def test_count_sum_largest_and_zeros() -> None:
    """One pass gives the count, the sum, the largest and the zeros; none: NaN."""
    values = np.array([0.0, 2.5, 0.0, 4.0, 1.5])
    got = chunked.describe(pieces_of(values, 2))
    assert (5, 8.0, 4.0, 2, 1.5, 1.6) == (
        got.count,
        got.total,
        got.maximum,
        got.zeros,
        got.median,
        got.mean,
    )
    empty = chunked.describe(pieces_of(np.empty(0), 2))
    assert (0, True, True, True) == (
        empty.count,
        math.isnan(empty.median),
        math.isnan(empty.mean),
        math.isnan(empty.maximum),
    )


def spilled_rows(count: int, backends: str = "a") -> CompactRows:
    """``count`` puzzles of each backend, some of each status, times spread over decades."""
    rng = np.random.default_rng(5)
    statuses = ["SOLVED"] * 6 + ["UNSAT", "TIMEOUT", "ERROR"]
    n = count * len(backends)
    numbers = zip(
        (rng.random(n) * 1e-4).tolist(),
        rng.lognormal(-8, 2, n).tolist(),
        (rng.random(n) * 1e-3).tolist(),
        rng.integers(0, 9, n).astype(float).tolist(),
        rng.integers(0, 3, n).astype(float).tolist(),
        strict=True,
    )
    row = {"dataset": "d", "size": 9, "repeat": 0, "solutions": 1, "own_solve_s": ""}
    rows = CompactRows(limit=1)
    for i, (encode, solve, cpu, nodes, guesses) in enumerate(numbers):
        line, backend = divmod(i, len(backends))
        row.update(line=line + 1, backend=backends[backend], encode_s=encode, solve_s=solve)
        row.update(solve_cpu_s=cpu, nodes=nodes, guesses=guesses)
        row["status"] = statuses[line % len(statuses)]
        rows.add(row)
    return rows


def test_a_runs_columns_and_the_same_in_memory_give_the_same_table() -> None:
    """The table of a run's spilled columns (several chunks) is the table of the same
    columns as arrays (as ``harness table`` passes them), figure for figure."""
    puzzles = summary.run_puzzles(spilled_rows(40_000, "ab"))
    in_memory = {c: v.array() if isinstance(v, Spilled) else v for c, v in puzzles.items()}
    assert all(isinstance(v, (Coded, np.ndarray)) for v in in_memory.values())
    assert str(summary.summary(in_memory)) == str(summary.summary(puzzles))


def test_the_end_of_a_runs_summary_takes_a_few_bytes_a_puzzle() -> None:
    """The tables of 300,000 spilled rows take under 3 MB and 6 bytes a row beyond the rows."""
    count = 300_000
    rows = spilled_rows(count)
    tracemalloc.start()
    try:
        puzzles = summary.run_puzzles(rows)
        summary.summary(puzzles)
        summary.native_summary(puzzles)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3e6 + 6 * count, peak
