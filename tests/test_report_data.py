"""The data behind the report's plots and tables (not the pixels)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from harness.report import data

TIMEOUT = 3.0


def row(backend: str, line: int, status: str, solve_s: float, **extra: Any) -> dict:
    """One per-puzzle row of ``backend`` on puzzle ``line`` of d.txt."""
    return {
        "dataset": "d.txt",
        "line": line,
        "puzzle": f"p{line}",
        "size": 9,
        "backend": backend,
        "status": status,
        "solve_s": solve_s,
        "nodes": 10.0 * line,
        "guesses": 1.0,
        **extra,
    }


def runs_of(rows: pd.DataFrame, folder: Path) -> data.Runs:
    """``rows`` written as a results CSV (repeat 0 and a limit of 1 where they have none)
    and read back as the report reads it."""
    path = folder / "run.csv"
    defaults = {c: v for c, v in (("repeat", 0), ("limit", 1)) if c not in rows}
    rows.assign(**defaults).to_csv(path, index=False)
    return data.load_runs([path])


def only_group(runs: data.Runs) -> data.Group:
    (group,) = data.groups(runs)
    return group


@pytest.fixture
def frame() -> pd.DataFrame:
    """Backend a: 2 solved, 1 timeout; b: 1 solved, 1 WRONG (faster than anyone), 1 error."""
    return pd.DataFrame(
        [
            row("a", 1, "SOLVED", 0.010),
            row("a", 2, "SOLVED", 0.020),
            row("a", 3, "TIMEOUT", 3.2),
            row("b", 1, "SOLVED", 0.005),
            row("b", 2, "WRONG", 0.001),
            row("b", 3, "ERROR", 0.5),
        ]
    )


def test_cactus_has_one_point_per_solved_puzzle(frame: pd.DataFrame) -> None:
    """a solved 2 puzzles, b 1: the curves have 2 and 1 points, times ascending."""
    curves = data.cactus(frame)
    assert {"a": [0.010, 0.020], "b": [0.005]} == {k: list(v) for k, v in curves.items()}


def test_cactus_follows_the_given_order(frame: pd.DataFrame) -> None:
    """Backends named in ``order`` come first, in that order."""
    assert ["b", "a"] == list(data.cactus(frame, ["b"]))


def test_scatter_pins_unanswered_at_the_timeout(frame: pd.DataFrame) -> None:
    """The TIMEOUT, WRONG and ERROR rows sit at the limit, and WRONG is marked."""
    pairs = data.scatter(frame, "a", "b", TIMEOUT)
    assert [0.010, 0.020, TIMEOUT] == list(pairs["x"])
    assert [0.005, TIMEOUT, TIMEOUT] == list(pairs["y"])
    assert [False, True, False] == list(pairs["wrong"])
    assert [False, False, True] == list(pairs["pinned_x"])


def test_vbs_is_the_minimum_over_correct_answers(frame: pd.DataFrame, tmp_path: Path) -> None:
    """Puzzle 2's WRONG 1 ms answer does not count; puzzle 3 has no correct answer: the
    virtual best answers 5 and 20 ms, and counts puzzle 3 at twice the timeout."""
    with runs_of(frame, tmp_path) as runs:
        runs.timeout = TIMEOUT
        table = data.summary(runs, only_group(runs)).set_index("backend")
    virtual = table.loc[data.VBS]
    assert "2/3" == virtual["solved"]
    assert pytest.approx([12.5, 12.5, 20.0]) == [
        virtual[c] for c in ("median_ms", "mean_ms", "max_ms")
    ]
    assert pytest.approx((0.005 + 0.020 + 2 * TIMEOUT) / 3 * 1000) == virtual["par2_ms"]


def test_par2_counts_unsolved_as_twice_the_timeout(tmp_path: Path) -> None:
    """Answers in 1 and 2 s and a timeout of 3 s: (1 + 2 + 2 x 3) / 3 = 3 s."""
    rows = pd.DataFrame(
        [row("a", 1, "SOLVED", 1.0), row("a", 2, "SOLVED", 2.0), row("a", 3, "TIMEOUT", 99.0)]
    )
    with runs_of(rows, tmp_path) as runs:
        runs.timeout = TIMEOUT
        table = data.summary(runs, only_group(runs)).set_index("backend")
    assert pytest.approx(3000.0) == table.loc["a", "par2_ms"]


def test_summary_rows_and_virtual_best(frame: pd.DataFrame, tmp_path: Path) -> None:
    """a then b by PAR-2, then the virtual best solver with 2 of 3 puzzles."""
    with runs_of(frame, tmp_path) as runs:
        runs.timeout = TIMEOUT
        table = data.summary(runs, only_group(runs)).set_index("backend")
    assert ["a", "b", data.VBS] == list(table.index)
    assert ("2/3", 1, 0) == tuple(table.loc["a", ["solved", "timeouts", "wrong"]])
    assert ("1/3", 1, 1) == tuple(table.loc["b", ["solved", "wrong", "errors"]])
    assert "2/3" == table.loc[data.VBS, "solved"]
    assert pytest.approx((0.005 + 0.020 + 2 * TIMEOUT) / 3 * 1000) == table.loc[data.VBS, "par2_ms"]


def test_fastest_alone_counts_strict_wins_only(tmp_path: Path) -> None:
    """b wins puzzle 1; puzzle 2 is a tie and counts for nobody."""
    frame = pd.DataFrame(
        [
            row("a", 1, "SOLVED", 0.02),
            row("b", 1, "SOLVED", 0.01),
            row("a", 2, "SOLVED", 0.03),
            row("b", 2, "SOLVED", 0.03),
        ]
    )
    with runs_of(frame, tmp_path) as runs:
        table = data.summary(runs, only_group(runs))
    won = dict(zip(table["backend"], table["fastest_alone"], strict=True))
    assert {"a": 0, "b": 1} == {b: int(won[b]) for b in ("a", "b")}


def test_default_pair_is_the_two_best(frame: pd.DataFrame, tmp_path: Path) -> None:
    """With a third, slower backend, the pair is still a and b."""
    slow = pd.DataFrame([row("c", k, "TIMEOUT", 3.1) for k in (1, 2, 3)])
    with runs_of(pd.concat([slow, frame]), tmp_path) as runs:
        runs.timeout = TIMEOUT
        assert ("a", "b") == data.default_pair(runs, only_group(runs))


def test_effort_keeps_correct_answers_with_nodes(frame: pd.DataFrame) -> None:
    """a's two solved puzzles: nodes 10 and 20."""
    assert [10.0, 20.0] == list(data.effort(frame)["a"]["nodes"])


def test_ratio_interval_brackets_the_median() -> None:
    """20 puzzles all twice as slow: ratio 2, interval [2, 2]."""
    old = pd.Series([0.01 * (k + 1) for k in range(20)])
    assert (2.0, 2.0, 2.0) == tuple(round(v, 9) for v in data.ratio_interval(old, old * 2))


def test_ratio_interval_needs_enough_puzzles() -> None:
    """Three pairs give a median but no 95% interval."""
    median, low, high = data.ratio_interval(pd.Series([1.0, 1.0, 1.0]), pd.Series([1.0, 2, 3]))
    assert 2.0 == median
    assert math.isnan(low)
    assert math.isnan(high)


def test_groups_split_mixed_sizes(tmp_path: Path) -> None:
    """A dataset of 4x4 and 9x9 puzzles gives one group per size, each of its puzzles."""
    frame = pd.DataFrame([row("a", 1, "SOLVED", 0.1, size=4), row("a", 2, "SOLVED", 0.1)])
    with runs_of(frame, tmp_path) as runs:
        groups = data.groups(runs)
        lines = [list(data.puzzles(runs, g)["line"]) for g in groups]
    assert (["d.txt (4x4)", "d.txt (9x9)"], [[1], [2]]) == ([g.title for g in groups], lines)


def test_verdict_per_backend_is_the_worst_check() -> None:
    """a: one REGRESSION among oks (named); b: all ok (no checks named)."""
    findings = pd.DataFrame(
        [
            {"backend": "a", "dataset": "d", "check": "answered", "verdict": "ok"},
            {"backend": "a", "dataset": "d", "check": "nodes", "verdict": "REGRESSION"},
            {"backend": "b", "dataset": "d", "check": "answered", "verdict": "ok"},
        ]
    )
    table = data.verdicts(findings)
    assert [("a", "REGRESSION", "nodes"), ("b", "ok", "")] == list(
        zip(table["backend"], table["verdict"], table["checks"], strict=True)
    )


@pytest.mark.parametrize(("pinned", "reaches"), [(False, False), (True, True)])
def test_scatter_axes_reach_the_timeout_only_for_it(pinned: bool, reaches: bool) -> None:
    """Points far under the timeout: the axes end near them; one pinned: they reach it."""
    pytest.importorskip("matplotlib", reason="plots need pip install 'sudoku-harness[report]'")
    from harness.report import plots

    pairs = pd.DataFrame(
        {"x": [0.001, 0.002], "y": [0.003, TIMEOUT if pinned else 0.001], "wrong": [False] * 2}
    ).assign(pinned_x=False, pinned_y=[False, pinned])
    figure = plots.scatter(pairs, "a", "b", TIMEOUT, "t")
    assert reaches == (figure.axes[0].get_xlim()[1] >= TIMEOUT * 1000)


def test_per_puzzle_reduces_repeats_as_the_tables_do(tmp_path: Path) -> None:
    """Three repeats in shuffled order, a missing time, statuses that differ by repeat: one
    row per puzzle and backend, the median of each number over the repeats and the status
    of repeat 0, as harness table reduces them."""
    rows = []
    for repeat in (2, 0, 1):
        for line, backend in ((1, "a"), (2, "a"), (1, "b")):
            time = None if (repeat, line, backend) == (1, 2, "a") else 0.01 * (repeat + line)
            status = "TIMEOUT" if (repeat, backend) == (0, "b") else "SOLVED"
            rows.append(row(backend, line, status, time, repeat=repeat, nodes=float(repeat)))
    with runs_of(pd.DataFrame(rows), tmp_path) as runs:
        group = only_group(runs)
        got = data.puzzles(runs, group)[["line", "backend", "solve_s", "nodes", "status"]]
    assert [
        (1, "a", pytest.approx(0.02), 1.0, "SOLVED"),
        (2, "a", pytest.approx(0.03), 1.0, "SOLVED"),
        (1, "b", pytest.approx(0.02), 1.0, "TIMEOUT"),
    ] == [tuple(r) for r in got.astype(object).itertuples(index=False)]


@pytest.mark.parametrize("first", ["TIMEOUT", "SOLVED"])
def test_pooled_runs_take_a_puzzles_status_from_the_first(first: str, tmp_path: Path) -> None:
    """Two runs of one backend pooled with --merge, each with repeat 0 of every puzzle (more
    than DuckDB reads in one piece): every puzzle's status is the first run's, whichever run
    answered it."""
    other = "SOLVED" if first == "TIMEOUT" else "TIMEOUT"
    paths = []
    for name, status in (("one", first), ("two", other)):
        rows = pd.DataFrame([row("a", k, status, 0.01) for k in range(1, 20_001)])
        paths.append(tmp_path / f"{name}.csv")
        rows.assign(repeat=0, limit=1).to_csv(paths[-1], index=False)
    with data.load_runs(paths, merge=True) as runs:
        statuses = set(data.puzzles(runs, only_group(runs))["status"].astype(str))
    assert {first} == statuses


def test_the_repeats_spread_is_over_the_answered_puzzles(tmp_path: Path) -> None:
    """Puzzle 1 answered in 10, 20 and 30 ms; puzzle 2 timed out on repeat 0 (its status)
    and answered in 100 and 300 ms after: the spread and fastest repeat are puzzle 1's
    alone (IQR 50 % of the median, 10 ms), as harness table gives them."""
    times = {(1, 0): 0.01, (1, 1): 0.02, (1, 2): 0.03, (2, 0): 3.2, (2, 1): 0.1, (2, 2): 0.3}
    rows = pd.DataFrame(
        [
            row("a", line, "TIMEOUT" if (line, repeat) == (2, 0) else "SOLVED", time, repeat=repeat)
            for (line, repeat), time in times.items()
        ]
    )
    with runs_of(rows, tmp_path) as runs:
        spread = data.repeat_spread(runs, only_group(runs))
    assert [("a", 50.0, 10.0)] == [
        (b, round(s, 6), round(m, 6)) for b, s, m in spread.itertuples(index=False)
    ]
