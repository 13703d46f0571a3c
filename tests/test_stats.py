"""The statistics (harness.tables.stats) of random result rows equal a plain pandas computation.

Rows of several backends on two datasets (one mixing grid sizes), every status, empty cells,
repeats, puzzles some backends never ran and native statistics (numbers and text) are written
as a run writes them, read by the results engine, and summed up by ``stats.per_puzzle``,
``stats.summary`` and ``stats.native_summary``; the oracle below says what each figure is, in
pandas, from the same rows.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backends.base import Status
from harness.results import engine
from harness.results.schema import cell_texts
from harness.tables import stats
from tests.results_file import write_rows

STATUSES = [s.value for s in Status]
ANSWERED = ("SOLVED", "UNSAT")
#: The number columns the rows fill (the rest of the base columns stay empty).
NUMBERS = ["encode_s", "solve_s", "solve_cpu_s", "own_solve_s", "nodes", "guesses"]
NATIVES = ["conflicts", "mode", "ratio"]
KEYS = ["dataset", "line", "backend"]
#: A puzzle of unknown size, in the oracle's groups (pandas drops NaN keys).
NO_SIZE = -1

TIMES = st.one_of(
    st.none(),
    st.sampled_from([0.0, 0.001, 0.002, 0.25]),
    st.integers(0, 5 * 10**9).map(lambda ns: ns / 1e9),
)
COUNTS = st.one_of(st.none(), st.integers(0, 40))


@st.composite
def result_rows(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Rows of 1-3 backends on a.txt (9x9) and b.txt (4x4 and 9x9 mixed), each (puzzle,
    backend) run 0 to ``--repeat`` times, in a random order."""
    backends = draw(st.lists(st.sampled_from(["mrv", "dlx", "cmd:x"]), min_size=1, max_size=3))
    backends = list(dict.fromkeys(backends))
    repeat = draw(st.integers(1, 3))
    text_ratio = draw(st.booleans())  # one ratio cell is text: the column is text
    rows = []
    for dataset, sizes in (("a.txt", (9,)), ("b.txt", (4, 9))):
        for line in range(1, draw(st.integers(0, 4)) + 1):
            size = draw(st.sampled_from(sizes))
            for backend in backends:
                for k in range(draw(st.integers(0, repeat))):  # 0: never ran, rows missing
                    row = {"dataset": dataset, "line": line, "puzzle": f"p{line}"}
                    row |= {"backend": backend, "repeat": k, "limit": 1}
                    row["size"] = None if draw(st.integers(0, 9)) == 0 else size
                    row["status"] = draw(st.sampled_from(STATUSES))
                    for column in NUMBERS[:4]:
                        row[column] = draw(TIMES)
                    row["nodes"], row["guesses"] = draw(COUNTS), draw(COUNTS)
                    if backend == "cmd:x":
                        row["conflicts"] = draw(COUNTS)
                        row["mode"] = draw(st.sampled_from(["fast", None]))
                    row["ratio"] = draw(st.one_of(st.none(), st.floats(0, 1)))
                    rows.append(row)
    if rows and text_ratio:
        rows[0]["ratio"] = "n/a"
    return draw(st.permutations(rows))


def as_read(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The rows as the CSV holds them: numbers to the nanosecond, None as NaN."""
    frame = pd.DataFrame(rows, columns=[*KEYS, "repeat", "size", "status", *NUMBERS, *NATIVES])
    for column in ["size", *NUMBERS, *numeric_natives(frame)]:
        frame[column] = [
            math.nan if v is None else float(cell_texts([v])[0]) for v in frame[column]
        ]
    return frame


def numeric_natives(frame: pd.DataFrame) -> list[str]:
    """The native columns of numbers: every cell given is one."""
    return [c for c in NATIVES if all(v is None or _number(v) for v in frame[c])]


def _number(value: object) -> bool:
    return isinstance(value, int | float)


# -- the oracle ----------------------------------------------------------------------------


def oracle_puzzles(frame: pd.DataFrame, natives: list[str]) -> pd.DataFrame:
    """One row per puzzle and backend, in order of first appearance: each number the median
    over the repeats; status and size the first known by repeat; over the answered repeats
    with a time, when two or more, their interquartile range over their median and the
    fastest."""
    frame = frame.assign(_at=range(len(frame)))
    ordered = frame.sort_values("repeat", kind="stable").groupby(KEYS, sort=False)
    numbers = ordered[[*NUMBERS, *natives]].median()
    firsts = ordered[["status", "size"]].first()
    puzzles = pd.concat([numbers, firsts, ordered["_at"].min()], axis=1)
    answered = frame[frame["status"].isin(ANSWERED) & frame["solve_s"].notna()]
    times = answered.groupby(KEYS)["solve_s"]
    middle = times.median()
    spread = (times.quantile(0.75) - times.quantile(0.25)) / middle.where(middle != 0)
    several = times.count() > 1
    puzzles["solve_spread"] = spread[several]
    puzzles["solve_fastest"] = times.min()[several]
    puzzles["size"] = puzzles["size"].fillna(NO_SIZE)
    return puzzles.sort_values("_at").reset_index()


def oracle_summary(frame: pd.DataFrame, natives: list[str]) -> dict[tuple, dict[str, Any]]:
    """The summary's row of each group, by its key."""
    puzzles = oracle_puzzles(frame, natives)
    by = ["backend", "dataset"]
    if frame.groupby("dataset")["size"].nunique().max() > 1:
        by.append("size")
    others = by[1:]
    planned = puzzles.groupby(others)["line"].nunique()
    table = {}
    for key, group in puzzles.groupby(by):
        status = group["status"]
        answered = group[status.isin(ANSWERED)]
        solved = group.loc[status == "SOLVED", "guesses"]
        plan = planned[key[1] if len(others) == 1 else key[1:]]
        table[key] = {
            "puzzles": max(len(group), plan),
            "solved": int((status == "SOLVED").sum()),
            "correct": len(answered),
            "unsat": int((status == "UNSAT").sum()),
            "timeouts": int((status == "TIMEOUT").sum()),
            "unknown": int((status == "UNKNOWN").sum()),
            "errors": int(status.isin(["ERROR", "MEMOUT"]).sum()),
            "wrong": int((status == "WRONG").sum()),
            "unavailable": int((status == "UNAVAILABLE").sum()),
            "median_ms": answered["solve_s"].median() * 1000,
            "cpu_ms": answered["solve_cpu_s"].median() * 1000,
            "wall_cpu": _loaded(
                (answered["solve_s"] / answered["solve_cpu_s"].replace(0, math.nan)).median()
            ),
            "spread_pct": answered["solve_spread"].median() * 100,
            "min_ms": answered["solve_fastest"].median() * 1000,
            "own_ms": answered["own_solve_s"].median() * 1000,
            "mean_ms": answered["solve_s"].mean() * 1000,
            "max_ms": answered["solve_s"].max() * 1000,
            "encode_ms": answered["encode_s"].median() * 1000,
            "nodes_median": answered["nodes"].median(),
            "nodes_mean": answered["nodes"].mean(),
            "nodes_max": answered["nodes"].max(),
            "no_guess_pct": 100 * (solved == 0).sum() / solved.count() if solved.count() else None,
            "guesses_per_puzzle": solved.mean(),
        }
    for name in stats.OPTIONAL:  # a column no group has a value for is left out
        if all(missing(row[name]) for row in table.values()):
            for row in table.values():
                del row[name]
    fastest: dict[tuple, float] = {}
    for key, row in table.items():
        if not missing(row["median_ms"]):
            fastest[key[1:]] = min(fastest.get(key[1:], math.inf), row["median_ms"])
    for key, row in table.items():
        best, median = fastest.get(key[1:]), row["median_ms"]
        if missing(median) or best is None:
            ratio = None
        elif best == 0:
            ratio = None if median == 0 else math.inf
        else:
            ratio = median / best
        at = list(row).index("median_ms")  # x_fastest comes before the median
        items = list(row.items())
        table[key] = dict([*items[:at], ("x_fastest", ratio), *items[at:]])
    return table


def oracle_natives(frame: pd.DataFrame, natives: list[str], by: list[str]) -> list[dict]:
    """Per group of a known key: the median of each native statistic over the answered
    puzzles; groups and statistics with no value left out."""
    puzzles = oracle_puzzles(frame, natives)
    answered = puzzles[puzzles["status"].isin(ANSWERED)]
    if "size" in by:
        answered = answered[answered["size"] != NO_SIZE]
    table = answered.groupby(by)[natives].median().dropna(how="all")
    table = table.dropna(axis=1, how="all").reset_index()
    return table.to_dict("records")


# -- comparing -----------------------------------------------------------------------------


def missing(value: object) -> bool:
    return value is None or value != value


def same(x: object, y: object) -> bool:
    """Equal; unknown equal to unknown; numbers to 9 significant figures and 1e-12 (sums
    and interpolations may round in another order)."""
    if missing(x) or missing(y):
        return missing(x) and missing(y)
    if isinstance(x, int | float) and isinstance(y, int | float):
        return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)
    return x == y


def differences(expected: dict[str, Any], got: dict[str, Any]) -> dict[str, tuple]:
    return {k: (v, got.get(k, "absent")) for k, v in expected.items() if not same(v, got.get(k))}


def key_of(row: dict[str, Any], by: list[str]) -> tuple:
    return tuple(NO_SIZE if k == "size" and row[k] is None else row[k] for k in by)


def in_order(table: list[dict[str, Any]], within: list[str]) -> bool:
    """Rows sorted by group (unknown last), then most checked answers, then lowest median
    (unknown last)."""
    keys = [
        (
            *(stats.sort_key(r[k]) for k in within),
            -r["correct"],
            stats.sort_key(r["median_ms"]),
        )
        for r in table
    ]
    return keys == sorted(keys)


# -- the property --------------------------------------------------------------------------


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=result_rows())
def test_stats_give_the_figures_pandas_computes(rows: list[dict[str, Any]]) -> None:
    """Per puzzle, the summary and the native statistics of random rows: every figure as
    the pandas oracle has it, every group there, rows in speed order."""
    frame = as_read(rows)
    natives = numeric_natives(frame)
    with (
        tempfile.TemporaryDirectory() as folder,
        engine.read([write_rows(Path(folder) / "r.csv", rows, NATIVES)]) as r,
    ):
        assert natives == r.numeric_natives
        stats.per_puzzle(r.con)
        puzzles = r.records("SELECT * FROM puzzles")
        summary = stats.summary(r.con)
        native = stats.native_summary(r.con)
        by = list(stats.grouping(r.con))

    expected = oracle_puzzles(frame, natives).to_dict("records")
    assert [key_of(p, KEYS) for p in expected] == [key_of(p, KEYS) for p in puzzles]
    columns = [*NUMBERS, *natives, "status", "size", "solve_spread", "solve_fastest"]
    for want, got in zip(expected, puzzles, strict=True):
        got = {**got, "size": NO_SIZE if got["size"] is None else got["size"]}
        assert {} == differences({c: want[c] for c in columns}, got), key_of(want, KEYS)

    table = oracle_summary(frame, natives)
    assert set(table) == {key_of(row, by) for row in summary}
    for row in summary:
        want = table[key_of(row, by)]
        assert [*by, *want] == list(row)
        assert {} == differences(want, row), key_of(row, by)
    assert in_order(summary, by[1:])

    assert len(oracle_natives(frame, natives, by)) == len(native)
    for want, got in zip(oracle_natives(frame, natives, by), native, strict=True):
        assert list(want) == list(got)
        assert {} == differences(want, got)


def _loaded(ratio: float) -> float | None:
    """The summary's wall/cpu: shown above 1.2 only."""
    return ratio if not missing(ratio) and ratio > 1.2 else None
