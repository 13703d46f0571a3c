"""The pandas tables: every row counted once, times only from checked answers, medians."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from backends.base import Status
from harness.tables import frames as tables


def row(line: int, status: str, solve_s: float, repeat: int = 0, **extra: Any) -> dict:
    """One result row of backend 'b' on dataset 'd.txt'."""
    base = {
        "dataset": "d.txt",
        "line": line,
        "puzzle": f"p{line}",
        "size": 9,
        "givens": 25,
        "backend": "b",
        "repeat": repeat,
        "status": status,
        "solutions": 1 if status == "SOLVED" else 0,
        "encode_s": 0.001,
        "solve_s": solve_s,
        "nodes": 10 * line,
        "guesses": 0,
        "message": "",
    }
    return {**base, **extra}


def summary_of(*rows: dict) -> dict:
    """The single summary row of ``rows``, as a dict."""
    return tables.summary(pd.DataFrame(rows)).iloc[0].to_dict()


def test_every_status_lands_in_exactly_one_column() -> None:
    """Eight rows, one of each status: each column counts one, and solved is 1/8."""
    statuses = [s.value for s in Status]
    got = summary_of(*(row(i + 1, s, 0.01) for i, s in enumerate(statuses)))
    columns = ["unsat", "timeouts", "unknown", "errors", "wrong", "unavailable"]
    assert ("1/8", [1, 1, 1, 2, 1, 1]) == (got["solved"], [got[c] for c in columns])


def test_times_come_from_checked_answers_only() -> None:
    """A WRONG and a TIMEOUT row's times never enter the median, mean or max."""
    got = summary_of(
        row(1, "SOLVED", 0.002),
        row(2, "SOLVED", 0.004),
        row(3, "WRONG", 0.0001),
        row(4, "TIMEOUT", 30.0),
    )
    assert (3.0, 3.0, 4.0) == (got["median_ms"], got["mean_ms"], got["max_ms"])


def test_repeats_give_the_median_per_puzzle() -> None:
    """Three repeats of one puzzle at 1, 2 and 9 ms count as one puzzle at 2 ms."""
    got = summary_of(*(row(1, "SOLVED", t, repeat=k) for k, t in enumerate((0.001, 0.009, 0.002))))
    assert ("1/1", 2.0) == (got["solved"], got["median_ms"])


def test_counters_and_guess_share_from_answers() -> None:
    """Node statistics over answered puzzles; no_guess_pct over solved ones."""
    got = summary_of(
        row(1, "SOLVED", 0.001, guesses=0),
        row(3, "SOLVED", 0.001, guesses=4),
        row(5, "TIMEOUT", 1.0, guesses=99),
    )
    assert (20.0, 30.0, 50.0, 2.0) == (
        got["nodes_median"],
        got["nodes_max"],
        got["no_guess_pct"],
        got["guesses_per_puzzle"],
    )


def test_no_answer_leaves_times_empty() -> None:
    """A backend with no checked answer has empty times, not zeros."""
    got = summary_of(row(1, "TIMEOUT", 1.0), row(2, "ERROR", 0.5))
    assert math.isnan(got["median_ms"])
    assert math.isnan(got["nodes_median"])


def test_native_summary_keeps_only_reported_statistics() -> None:
    """Native columns a backend leaves empty are dropped; the rest are medians."""
    frame = pd.DataFrame(
        [
            row(1, "SOLVED", 0.001, clauses=100, updates=None),
            row(2, "SOLVED", 0.001, clauses=300, updates=None),
        ]
    )
    table = tables.native_summary(frame)
    assert (["backend", "dataset", "clauses"], [200.0]) == (
        list(table.columns),
        list(table["clauses"]),
    )


def test_summary_by_tier_follows_the_given_order() -> None:
    """Tiers appear in the order given, puzzles without a tier as 'unrated' last."""
    frame = pd.DataFrame([row(1, "SOLVED", 0.001), row(2, "SOLVED", 0.002), row(3, "SOLVED", 1.0)])
    table = tables.summary_by_tier(frame, {"p1": "hard", "p2": "easy"}, ["easy", "hard"])
    assert ["easy", "hard", "unrated"] == list(table["tier"])


def test_a_dataset_of_mixed_sizes_gets_a_row_per_size() -> None:
    """A 4x4 and a 25x25 puzzle of one file are summarised apart, not in one median."""
    frame = pd.DataFrame([row(1, "SOLVED", 0.001, size=4), row(2, "SOLVED", 0.5, size=25)])
    table = tables.summary(frame)
    assert ([4, 25], [1.0, 500.0]) == (list(table["size"]), list(table["median_ms"]))


def test_native_statistics_print_per_backend_only_what_it_reports() -> None:
    """Each backend's line names only its own statistics, with human numbers, in 100 columns."""
    frame = pd.DataFrame(
        [
            row(1, "SOLVED", 0.001, clauses=1500, updates=None),
            {**row(1, "SOLVED", 0.001, clauses=None, updates=12345), "backend": "c"},
        ]
    )
    text = tables.render_native(tables.native_summary(frame))
    expected = [
        "backend  dataset  statistics",
        "b        d.txt    clauses 1,500",
        "c        d.txt    updates 12,345",
    ]
    assert expected == text.splitlines()


def test_native_statistics_wrap_between_name_value_pairs() -> None:
    """A long list wraps under its first statistic, never between a name and its value."""
    stats = {f"statistic_number_{i}": 1000 * i for i in range(1, 9)}
    text = tables.render_native(
        tables.native_summary(pd.DataFrame([row(1, "SOLVED", 0.1, **stats)]))
    )
    lines = text.splitlines()[1:]
    assert max(len(line) for line in lines) <= 100
    assert all(line.startswith(" " * 18 + "statistic_number_") for line in lines[1:])
    assert 8 == sum(line.count("statistic_number_") for line in lines)
